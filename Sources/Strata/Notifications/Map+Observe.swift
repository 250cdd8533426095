import Dispatch
import StrataEngine
import StrataNotify

extension Map {
    /// Registers a block called with the map's changes as keys, as Realm Swift's
    /// `Map.observe(keyPaths:on:_:)`: `.initial`, then `.update` with the keys removed, added and
    /// modified (a linked object that changed or was deleted modifies its key).
    ///
    /// Traps inside a write transaction, for an unmanaged map, and on a thread with no scheduler.
    ///
    /// - Parameters:
    ///   - keyPaths: For maps of objects, property paths of the values whose changes count.
    ///   - queue: A serial queue to deliver on, with the map resolved in a Realm confined to it,
    ///     or nil for this Realm's own scheduler (see ``RealmCollection/observe(keyPaths:on:_:)``).
    ///   - block: Called with each change.
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        if let queue {
            return observeHandedOver(to: queue) { resolved, isWanted in
                switch resolved {
                case .success(let map):
                    return map.observe(keyPaths: keyPaths, on: nil) { change in
                        if isWanted() { block(change) }
                    }
                case .failure(let error):
                    block(.error(error))
                    return nil
                }
            }
        }
        guard let location, location.path.isEmpty else {
            preconditionFailure("This method may only be called on RLMDictionary instances retrieved from an RLMRealm")
        }
        let realm = location.realm
        let watch = objectClass(of: Value.self).map {
            KeyPathFilter(realm: realm).collectionNode(keyPaths, for: ClassInfo.known($0))
        }
        let computer = MapComputer(path: location.propertyPath, watch: watch)
        return realm.addNotifier(computer) { [self] delivery, _ in
            switch delivery {
            case .initial: block(.initial(self))
            case .change(_, let change, _, _):
                block(.update(self, deletions: change.deletions.map(Key.init(_rlmKey:)),
                              insertions: change.insertions.map(Key.init(_rlmKey:)),
                              modifications: change.modifications.map(Key.init(_rlmKey:))))
            }
        }
    }
}

/// The object class a map's value type stores: `Dog` for both `Map<String, Dog>` and the usual
/// `Map<String, Dog?>`; nil for values that are not objects.
func objectClass<Value>(of type: Value.Type) -> ObjectBase.Type? {
    if let objectClass = type as? ObjectBase.Type { return objectClass }
    guard let optional = type as? any _QueryOptional.Type else { return nil }
    return wrappedObjectClass(optional)
}

private func wrappedObjectClass<Optional: _QueryOptional>(_: Optional.Type) -> ObjectBase.Type? {
    Optional.Wrapped.self as? ObjectBase.Type
}
