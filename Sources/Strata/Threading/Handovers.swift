import StrataEngine
import StrataQuery

/// Where a managed collection lives, without its Realm: the owner's table and key, the
/// property's column and the path inside a nested collection.
struct LocationAddress: Sendable {
    let table: TableKey
    let object: ObjectKey
    let column: Int
    let path: [NestedKey]

    /// The address of a managed collection; traps for an unmanaged one, as Realm does.
    init(_ location: CollectionLocation?) {
        guard let location else { preconditionFailure("Cannot construct reference to unmanaged object") }
        table = location.table
        object = location.object
        column = location.column
        path = location.path
    }

    /// The collection in `realm`, or nil when its owner does not exist at `realm`'s version.
    func attach(to realm: Realm) -> CollectionLocation? {
        guard realm.readSnapshot.table(table)?.contains(object) == true else { return nil }
        return CollectionLocation(_ReadContext(realm: realm, table: table, object: object, column: column, path: path))
    }
}

extension ObjectBase: ThreadConfined {
    public func _handover() -> _Handover {
        guard let handle else { preconditionFailure("Cannot construct reference to unmanaged object") }
        let type = Swift.type(of: self)
        let classInfo = handle.table.classInfo
        let key = handle.key
        return _Handover { realm in
            guard let table = realm.tableInfo(for: classInfo),
                  realm.readSnapshot.table(table.key)?.contains(key) == true else { return nil }
            return realm.accessor(type, table: table, key: key)
        }
    }
}

extension List {
    public func _handover() -> _Handover {
        let address = LocationAddress(location)
        return _Handover { realm in
            guard let location = address.attach(to: realm) else { return nil }
            return List(location: location)
        }
    }
}

extension MutableSet {
    public func _handover() -> _Handover {
        let address = LocationAddress(location)
        return _Handover { realm in
            guard let location = address.attach(to: realm) else { return nil }
            return MutableSet(location: location)
        }
    }
}

extension Map: ThreadConfined {
    public func _handover() -> _Handover {
        let address = LocationAddress(location)
        return _Handover { realm in
            guard let location = address.attach(to: realm) else { return nil }
            return Map(location: location)
        }
    }
}

extension LinkingObjects: ThreadConfined {
    public func _handover() -> _Handover {
        let address = LocationAddress(location)
        let propertyName = self.propertyName
        return _Handover { realm in
            address.attach(to: realm).map { LinkingObjects(propertyName: propertyName, location: $0) }
        }
    }
}

extension Results {
    /// A Results reference carries its query, which runs again in the target Realm.
    public func _handover() -> _Handover {
        let query = modelQuery
        switch source {
        case .table(let className):
            return _Handover { realm in Results(realm: realm, source: .table(className: className), query: query) }
        case .collection(let base):
            let address = LocationAddress(base.location)
            let (objectClass, backlinks) = (base.objectClass, base.backlinks)
            return _Handover { realm in
                address.attach(to: realm).map { location in
                    let base = CollectionBase(location: location, objectClass: objectClass, backlinks: backlinks)
                    return Results(realm: realm, source: .collection(base), query: query)
                }
            }
        }
    }
}
