extension ObjectBase {
    /// Registers a block that runs isolated to `actor` when the object changes or is deleted,
    /// as Realm Swift's `Object.observe(keyPaths:on:_:)` for actors. There is no initial callback.
    ///
    /// The object is handed over with a ``ThreadSafeReference`` and resolved in a Realm confined
    /// to `actor`; the block receives the actor's copy (see
    /// ``RealmCollection/observe(keyPaths:on:_isolation:_:)``).
    ///
    /// - Parameters:
    ///   - keyPaths: The property paths that count.
    ///   - actor: The actor to deliver on.
    ///   - block: Called, isolated to `actor`, with each change (`.error` if the Realm could not
    ///     be opened there).
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe<A: Actor, T: ObjectBase>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void
    ) async -> NotificationToken {
        guard let handle, let object = self as? T else {
            preconditionFailure("Only objects which are managed by a Realm support change notifications")
        }
        let realm = handle.realm
        realm.verifyThread()
        precondition(handle.exists, "Object has been deleted or invalidated.")
        precondition(!realm.isInWriteTransaction, "Cannot register notification blocks from within write transactions.")
        let reference = ThreadSafeReference(to: object)
        let observation = await registerHandedOverObserver(reference, configuration: realm.configuration, on: actor,
                                                           failed: { actor, error in block(actor, .error(error)) },
                                                           register: { actor, object, observation in
            object.observe(keyPaths: keyPaths, on: nil) { (change: ObjectChange<T>) in
                if observation.isWanted { block(actor, change) }
            }
        })
        return HandedOverToken(observation)
    }
}
