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
    /// Makes the unmanaged collections `object` holds the managed collections of its properties,
    /// now that it is the accessor of the object `key` of `table`.
    ///
    /// - Complexity: O(c) for c collection properties; nothing for a class without any.
    func adoptCollections(of object: ObjectBase, in table: TableInfo, key: ObjectKey) {
        let info = table.classInfo
        for index in info.collectionProperties {
            let property = info.properties[index]
            property.accessor.adoptCollection(at: object.address(of: property),
                                              _ReadContext(realm: self, table: table.key, object: key,
                                                           column: table.columns[index]))
        }
    }
}
