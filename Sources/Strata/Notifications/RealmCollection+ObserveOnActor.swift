extension RealmCollection {
    /// Registers a block that runs isolated to `actor` with the collection's changes, as Realm
    /// Swift's `observe(keyPaths:on:_:)` for actors.
    ///
    /// The collection is handed over with a ``ThreadSafeReference`` and resolved in a Realm of
    /// the same configuration confined to `actor` (``Realm/init(configuration:actor:)``); the
    /// block receives that actor's collection. Delivery works for any actor: each change is a
    /// job queued on the actor, run when the actor is free. The call returns once the observer
    /// is registered; `.initial` follows asynchronously.
    ///
    /// ```swift
    /// let token = await dogs.observe(on: watcher) { watcher, change in
    ///     if case .update(let dogs, _, _, _) = change { watcher.count = dogs.count }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPaths: Property paths of the elements whose changes count as modifications.
    ///   - actor: The actor to deliver on.
    ///   - block: Called, isolated to `actor`, with each change (`.error` if the Realm could not
    ///     be opened there).
    /// - Returns: A token; keep it for as long as you want notifications. It may be invalidated
    ///   from any thread; no block starts after `invalidate()` returns.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void
    ) async -> NotificationToken {
        guard let realm else {
            preconditionFailure("Only collections which are managed by a Realm support change notifications")
        }
        realm.verifyThread()
        precondition(!realm.isInWriteTransaction, "Cannot register notification blocks from within write transactions.")
        let reference = ThreadSafeReference(to: self)
        let observation = await registerHandedOverObserver(reference, configuration: realm.configuration, on: actor,
                                                           failed: { actor, error in block(actor, .error(error)) },
                                                           register: { actor, collection, observation in
            collection.observe(keyPaths: keyPaths, on: nil) { change in
                if observation.isWanted { block(actor, change) }
            }
        })
        return HandedOverToken(observation)
    }
}

/// Opens a Realm of `configuration` confined to `actor`, resolves `reference` there and lets
/// `register` add the observer (which checks the observation's `isWanted` before each block);
/// calls `failed` when the Realm cannot be opened.
func registerHandedOverObserver<Value: ThreadConfined, A: Actor>(
    _ reference: ThreadSafeReference<Value>, configuration: Realm.Configuration, on actor: isolated A,
    failed: @Sendable (isolated A, any Error) -> Void,
    register: @Sendable (isolated A, Value, QueueObservation) -> NotificationToken
) async -> QueueObservation {
    let realm: Realm
    do {
        realm = try await Realm(configuration: configuration, actor: actor)
    } catch {
        failed(actor, error)
        return QueueObservation(invalidatingOn: ActorScheduler(actor: actor))
    }
    let observation = QueueObservation(invalidatingOn: realm.state.scheduler ?? ActorScheduler(actor: actor))
    guard let value = realm.resolve(reference) else { return observation }   // deleted meanwhile
    observation.attach(register(actor, value, observation), realm: realm)
    return observation
}

extension RealmCollection where Element: ObjectBase {
    /// Registers a block that runs isolated to `actor` with the collection's changes, key paths
    /// given as Swift key paths (`[\Dog.name, \.owner?.name]`), as Realm Swift's
    /// `observe(keyPaths:on:_:)` for actors; see the string key paths variant.
    ///
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe<A: Actor>(
        keyPaths: [PartialKeyPath<Element>], on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void
    ) async -> NotificationToken {
        let names = KeyPathTracer.observedNames(keyPaths)
        return await observe(keyPaths: names, on: actor, _isolation: _isolation, block)
    }
}
