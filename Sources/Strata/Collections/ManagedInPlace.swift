import StrataEngine

/// A collection (`List`, `MutableSet`, `Map`) that becomes, in place, the managed collection of
/// its property when the unmanaged object holding it is added to a Realm, as Realm Swift's do: a
/// reference taken from the object before `add` afterwards reads and writes the Realm.
///
/// Only the add path calls ``becomeManaged(_:)``, once per collection property of the added
/// object; reads and writes of the collection are unchanged (a managed collection made for a
/// read is managed from the start).
///
/// A managed object keeps the collection its property last returned in the property's storage,
/// and returns it again while it is still that object's (see
/// ``ObjectBase/holdsManagedCollection(_:property:)``): `object.list === object.list`, as in
/// Realm Swift, also for the collection adopted by `add`.
protocol ManagedInPlace: AnyObject {
    /// Where the managed collection lives; nil while unmanaged.
    var location: CollectionLocation? { get }

    /// Makes this unmanaged collection the accessor of the managed property at `context`,
    /// dropping its unmanaged elements (the add wrote them to the Realm). A collection that is
    /// already managed is left as it is.
    func becomeManaged(_ context: _ReadContext)
}

extension Realm {
    /// Finishes making `object` the accessor of the object `key` of `table`: its unmanaged
    /// collections become the managed collections of their properties, and the unmanaged links
    /// and mixed values it held are let go (the add wrote them to the Realm; keeping them would
    /// keep a graph of unmanaged objects, cycles included, alive as long as the accessor).
    ///
    /// - Complexity: O(c) for c collection, link and mixed properties; nothing for a class
    ///   without any.
    func adoptUnmanagedState(of object: ObjectBase, in table: TableInfo, key: ObjectKey) {
        let info = table.classInfo
        for index in info.collectionProperties {
            let property = info.properties[index]
            property.accessor.adoptCollection(at: object.address(of: property),
                                              _ReadContext(realm: self, table: table.key, object: key,
                                                           column: table.columns[index]))
        }
        for index in info.singleLinkProperties {
            let property = info.properties[index]
            property.accessor.releaseUnmanagedValue(at: object.address(of: property))
        }
    }
}
