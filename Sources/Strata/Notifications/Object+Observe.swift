import Dispatch
import StrataEngine
import StrataNotify

extension ObjectBase {
    /// Registers a block called when the object changes or is deleted, as Realm Swift's
    /// `Object.observe(keyPaths:on:_:)`. There is no initial callback.
    ///
    /// Without `keyPaths` the observer is shallow: it sees the object's own properties, and a
    /// `List`, `MutableSet` or `Map` property only when its membership changes. With `keyPaths`
    /// (`["dogs.name"]`) it fires only for those paths, reporting the top-level property.
    /// `PropertyChange.oldValue` is nil when this Realm made the change.
    ///
    /// ```swift
    /// let token = person.observe(keyPaths: ["name"]) { (change: ObjectChange<Person>) in
    ///     if case .change(_, let properties) = change { print(properties.map(\.name)) }
    /// }
    /// ```
    ///
    /// With a `queue`, the block runs on that serial queue with the object resolved in a Realm
    /// confined to it (see ``RealmCollection/observe(keyPaths:on:_:)``).
    ///
    /// Traps inside a write transaction, for an unmanaged or deleted object, and, without a
    /// queue, on a thread with no scheduler.
    ///
    /// - Parameters:
    ///   - keyPaths: The property paths that count.
    ///   - queue: A serial queue to deliver on, or nil for this Realm's own scheduler.
    ///   - block: Called with each change.
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        if let queue {
            guard let object = self as? T else {
                preconditionFailure("Only objects which are managed by a Realm support change notifications")
            }
            return object.observeHandedOver(to: queue) { resolved, isWanted in
                switch resolved {
                case .success(let object):
                    return object.observe(keyPaths: keyPaths, on: nil) { (change: ObjectChange<T>) in
                        if isWanted() { block(change) }
                    }
                case .failure(let error):
                    block(.error(error))
                    return nil
                }
            }
        }
        guard let handle, let object = self as? T else {
            preconditionFailure("Only objects which are managed by a Realm support change notifications")
        }
        precondition(handle.exists, "Object has been deleted or invalidated.")
        let realm = handle.realm
        let table = handle.table
        let filter = KeyPathFilter(realm: realm).objectFilter(keyPaths, for: table.classInfo)
        let computer = ObjectComputer(table: table.key, object: handle.key, filter: filter)
        return realm.addNotifier(computer, baselineAtRegistration: true) { delivery, isLocal in
            guard case .change(_, let change, _, _) = delivery else { return }
            switch change {
            case .deleted:
                block(.deleted)
            case .changed(let properties):
                block(.change(object, properties.compactMap { handle.propertyChange($0, usesColumnTags: filter == nil,
                                                                                      isLocal: isLocal) }))
            }
        }
    }

    /// Registers a block with key paths given as Swift key paths (`[\Person.name]`).
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observe(keyPaths: KeyPathTracer.observedNames(keyPaths), on: queue, block)
    }
}

extension ObjectHandle {
    /// The public form of a changed property: its name and, for values that are not
    /// collections, the values before (unless the change was local) and after.
    func propertyChange(_ change: PropertyChangeSet, usesColumnTags: Bool, isLocal: Bool) -> PropertyChange? {
        let property: Int
        if usesColumnTags {
            guard let index = table.columns.firstIndex(of: change.tag) else { return nil }
            property = index
        } else {
            property = change.tag
        }
        let info = table.classInfo.properties[property]
        guard info.column.collection == .single, !info.isLinkingObjects else {
            return PropertyChange(name: info.name, oldValue: nil, newValue: nil)
        }
        let column = table.columns[property]
        func convert(_ value: StrataEngine.Value?) -> Any? {
            value.flatMap { Self.anyValue($0, as: info.accessor.valueType, context(column: column)) }
        }
        return PropertyChange(name: info.name, oldValue: isLocal ? nil : convert(change.oldValue),
                              newValue: convert(change.newValue))
    }

    /// The stored value as the property's Swift type; an optional property's value unwrapped,
    /// so a nil link or nil string is `nil` rather than an `Any` holding `Optional.none`.
    private static func anyValue<V: _Persistable>(_ value: StrataEngine.Value, as type: V.Type,
                                                  _ context: _ReadContext) -> Any? {
        let decoded = V._rlmFromStored(value, context)
        if let optional = decoded as? any _FlattenableOptional { return optional.flattened }
        return decoded
    }
}

/// An `Optional` seen through `Any`, so its wrapped value can be taken out.
protocol _FlattenableOptional {
    var flattened: Any? { get }
}

extension Optional: _FlattenableOptional {
    var flattened: Any? { self.map { $0 } }
}
