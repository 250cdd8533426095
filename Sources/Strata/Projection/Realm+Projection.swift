extension Realm {
    /// Every object of the projection's root type, each seen through a projection, live, as
    /// Realm Swift's `objects(_:)` for a `Projection` subclass.
    ///
    /// The results are those of `objects(Root.self)`: queries and sorts name the root's
    /// properties (`filter("address.city == 'Paris'")`), and each element is a new projection
    /// of the object at that position.
    ///
    /// ```swift
    /// for person in realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName") {
    ///     print(person.firstName, person.homeCity ?? "-")
    /// }
    /// ```
    ///
    /// - Complexity: O(1); the query runs when the results are read.
    public func objects<Element: ProjectionObservable & RealmCollectionValue>(_ type: Element.Type) -> Results<Element>
    where Element.Root: Object {
        verifyThread()
        let info = ClassInfo.known(Element.Root.self)
        _ = tableInfo(for: info)
        return Results(realm: self, source: .table(className: info.className))
    }
}

extension RealmCollection where Element: ProjectionObservable, Element.Root: Object {
    /// The projections whose root objects match a type-safe query over the root type:
    /// `realm.objects(PersonProjection.self).where { $0.address.city == "Paris" }`.
    ///
    /// - Complexity: O(1) to create; the query runs when the results are read.
    public func `where`(_ isIncluded: (Query<Element.Root>) -> Query<Bool>) -> Results<Element> {
        let predicate = isIncluded(Query<Element.Root>()).predicate(root: Element.Root.self)
        return _asResults.with { query in query.predicate = QueryArguments.conjoin(query.predicate, predicate) }
            .validated()
    }

    /// The projections sorted by a key path of the root type (through to-one links); stable.
    ///
    /// - Complexity: O(1) to create; the sort runs when the results are read.
    public func sorted<V>(by keyPath: KeyPath<Element.Root, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: KeyPathTracer.dottedName(of: keyPath), ascending: ascending)
    }
}
