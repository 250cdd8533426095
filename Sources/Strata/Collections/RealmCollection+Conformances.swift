import StrataEngine

extension List: RealmCollection {
    /// The list as a query over its elements, in list order (empty while unmanaged).
    public var _asResults: Results<Element> { Results(collectionOf: self, location: location) }
}

extension MutableSet: RealmCollection {
    /// The set as a query over its elements.
    public var _asResults: Results<Element> { Results(collectionOf: self, location: location) }
}

extension LinkingObjects: RealmCollection where Element: RealmCollectionValue {
    /// The linking objects as a query over them.
    public var _asResults: Results<Element> {
        guard let location else { preconditionFailure("Unmanaged LinkingObjects cannot be queried") }
        let base = CollectionBase(location: location, objectClass: Element.self, backlinks: (Element.self, propertyName))
        return Results(realm: location.realm, source: .collection(base))
    }
}

extension Results {
    /// Results over a managed collection property; traps for an unmanaged one, as Realm Swift
    /// does (only managed collections can be queried).
    init<C>(collectionOf collection: C, location: CollectionLocation?) {
        guard let location else {
            preconditionFailure("This method may only be called on RLMArray instances retrieved from an RLMRealm")
        }
        // `Dog` for a `List<Dog>`, and also for the `Dog?` values of a `Map<String, Dog?>`.
        let objectClass = Element._rlmColumn.objectType
        self.init(realm: location.realm, source: .collection(CollectionBase(location: location, objectClass: objectClass,
                                                                             backlinks: nil)))
    }
}

/// The operations of Realm's keyed collection (`Map`), as Realm Swift's `RealmKeyedCollection`:
/// queries over the values.
public protocol RealmKeyedCollection: Sequence {
    /// The type of the keys (`String`).
    associatedtype Key: _MapKey
    /// The type of the values.
    associatedtype Value: RealmCollectionValue
    /// The Realm managing the collection, or nil while unmanaged.
    var realm: Realm? { get }
    /// The number of entries.
    var count: Int { get }
    /// The values, in key order.
    var values: [Value] { get }
    /// The values as a query, in key order.
    var _valuesAsResults: Results<Value> { get }
}

extension Map: RealmKeyedCollection {
    public var _valuesAsResults: Results<Value> { Results(collectionOf: self, location: location) }
}

extension RealmKeyedCollection {
    /// The values matching a Realm Query Language predicate.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value> {
        do {
            return try _valuesAsResults.filter(validating: predicateFormat, arguments: args)
        } catch {
            preconditionFailure("Invalid query \"\(predicateFormat)\": \(error)")
        }
    }

    /// The values matching a predicate (arguments as in `filter(_:_:)`), throwing instead of
    /// trapping.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidQuery`.
    public func filter(validating predicateFormat: String, _ args: Any...) throws -> Results<Value> {
        try _valuesAsResults.filter(validating: predicateFormat, arguments: args)
    }

    /// The values sorted by a property.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        _valuesAsResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }
}

extension RealmKeyedCollection where Value: ObjectBase {
    /// The values matching a type-safe query.
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value> {
        _valuesAsResults.where(isIncluded)
    }
}

extension RealmKeyedCollection where Value: _QueryOptional, Value.Wrapped: ObjectBase {
    /// The values of a map of optional objects (`Map<String, Dog?>`) matching a type-safe query,
    /// as Realm Swift's `where`: `person.pets.where { $0.age > 2 }`. Nil values never match.
    ///
    /// - Complexity: O(1) to create; O(n) when read.
    public func `where`(_ isIncluded: (Query<Value.Wrapped>) -> Query<Bool>) -> Results<Value> {
        let predicate = isIncluded(Query<Value.Wrapped>()).predicate(root: Value.Wrapped.self)
        return _valuesAsResults.with { query in query.predicate = QueryArguments.conjoin(query.predicate, predicate) }
            .validated()
    }
}
