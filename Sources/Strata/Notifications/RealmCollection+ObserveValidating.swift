import Dispatch

extension RealmCollection {
    /// Registers a block called with the collection's changes, as ``observe(keyPaths:on:_:)``,
    /// but checking `keyPaths` first and throwing instead of trapping: for key paths from users
    /// or the network, as ``filter(validating:_:)`` is to ``filter(_:_:)``.
    ///
    /// ```swift
    /// do {
    ///     token = try events.observe(validatingKeyPaths: pathsFromTheRequest) { change in … }
    /// } catch {
    ///     reply(badRequest: "\(error)")  // e.g. "property 'nope' not found in object of type 'Event'"
    /// }
    /// ```
    ///
    /// A key path is property names separated by single dots; every name but the last must be a
    /// link, a collection of links or a `LinkingObjects` property (a path goes no further than a
    /// value). `nil` or `[]` means no filter, as in ``observe(keyPaths:on:_:)``.
    ///
    /// - Parameters:
    ///   - keyPaths: Property paths of the elements whose changes count as modifications.
    ///   - queue: A serial queue to deliver on, or nil for this Realm's own scheduler.
    ///   - block: Called with each change.
    /// - Returns: A token, as ``observe(keyPaths:on:_:)`` returns.
    /// - Throws: ``Realm/Error`` with code `invalidQuery` naming the key path and what is wrong:
    ///   an empty component (`"id..type"`, `"."`), a property the class does not have, or a path
    ///   that goes past a value; or key paths on a collection of values, which has no properties.
    ///   Nothing is registered when it throws.
    /// - Complexity: O(total length of the key paths) to check them.
    public func observe(validatingKeyPaths keyPaths: [String]?, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) throws -> NotificationToken {
        try validateObserved(keyPaths)
        return observe(keyPaths: keyPaths, on: queue, block)
    }

    /// Checks `keyPaths` as ``observe(validatingKeyPaths:on:_:)`` does.
    ///
    /// Not part of Strata's API: SPI for the demo daemon in `Demo/` (`@_spi(StrataDaemon) import
    /// Strata`), which checks a subscription's key paths before it shares a query.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidQuery` naming the key path and what is wrong.
    @_spi(StrataDaemon) public func validateObserved(_ keyPaths: [String]?) throws {
        guard let keyPaths, !keyPaths.isEmpty else { return }
        guard let info = KeyPathFilter.elementInfo(of: _asResults) else {
            throw Realm.Error(Realm.Error.invalidQuery, "Invalid key paths \(keyPaths): the collection holds "
                              + "values, which have no properties to observe")
        }
        try KeyPathFilter.validate(keyPaths, for: info)
    }
}

extension ObjectBase {
    /// Registers a block called with the object's changes, as `observe(keyPaths:on:_:)`, but
    /// checking `keyPaths` first and throwing instead of trapping (for key paths from users or
    /// the network).
    ///
    /// - Parameters:
    ///   - keyPaths: The property paths that count.
    ///   - queue: A serial queue to deliver on, or nil for this Realm's own scheduler.
    ///   - block: Called with each change.
    /// - Returns: A token; keep it for as long as you want notifications.
    /// - Throws: ``Realm/Error`` with code `invalidQuery` naming the key path and what is wrong
    ///   (as ``RealmCollection/observe(validatingKeyPaths:on:_:)`` checks them). Nothing is
    ///   registered when it throws.
    public func observe<T: ObjectBase>(validatingKeyPaths keyPaths: [String]?, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) throws -> NotificationToken {
        if let keyPaths, !keyPaths.isEmpty {
            try KeyPathFilter.validate(keyPaths, for: ClassInfo.known(type(of: self)))
        }
        return observe(keyPaths: keyPaths, on: queue, block)
    }
}
