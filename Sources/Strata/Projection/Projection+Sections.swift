// Sectioning a collection of projections, as Realm Swift's `sectioned(by:)` where the elements
// are `Projection`s: the sort runs on the root objects, the section key is read on the projection.

extension ProjectionObservable {
    /// The root's property path a projected key path reads (`\.homeCity` → `address.city`).
    ///
    /// Traps when the key path reads no `@Projected` property.
    static func originPath<Value>(of keyPath: KeyPath<Self, Value>) -> String {
        let tracer = KeyPathTracer()
        let projection = Self(projecting: tracer.tracedObject(Root.self))
        _ = projection[keyPath: keyPath]
        let read = tracer.projectedKeyPath
        guard let property = ProjectionSchema.properties(of: projection).first(where: { $0.keyPath == read }) else {
            preconditionFailure("Key path \(keyPath) does not refer to a @Projected property of '\(Self.self)'")
        }
        return property.originPath
    }
}

extension RealmCollection where Element: ProjectionObservable {
    /// The projections sorted by a projected property and grouped into sections by its value.
    ///
    /// - Complexity: O(1) to create; O(n log n) when read.
    public func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        let name = Element.originPath(of: keyPath)
        return sectioned(by: keyPath, sortDescriptors: [SortDescriptor(keyPath: name, ascending: ascending)])
    }

    /// The projections sorted by `sortDescriptors` (root property paths), whose first descriptor
    /// must sort by the projected property `keyPath` reads, grouped into sections by its value.
    ///
    /// Traps when the first sort descriptor is not the projected property's root path.
    ///
    /// - Complexity: O(1) to create; O(n log n) when read.
    public func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        let name = Element.originPath(of: keyPath)
        precondition(
            sortDescriptors.first?.keyPath == name,
            "The section key path '\(name)' must be the key path of the first sort descriptor")
        return SectionedResults(results: sorted(by: sortDescriptors), keyPathName: name) { $0[keyPath: keyPath] }
    }

    /// The projections sorted by `sortDescriptors` (root property paths) and grouped into
    /// sections by the key `sectionBlock` returns for each.
    ///
    /// - Complexity: O(1) to create; O(n log n) when read.
    public func sectioned<Key: _Persistable & Hashable>(
        by sectionBlock: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: sortDescriptors), keyPathName: nil, sectionKey: sectionBlock)
    }
}
