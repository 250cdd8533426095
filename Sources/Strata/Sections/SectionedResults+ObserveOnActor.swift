import Dispatch

// The element and key types travel to the actor (their metatypes must be `Sendable`: every
// type without an isolated conformance is).
extension SectionedResults where SectionElement: SendableMetatype, Key: SendableMetatype {
    /// Registers a block that runs isolated to `actor` with the sections' changes, as Realm
    /// Swift's `observe(keyPaths:on:_:)` for actors: the underlying results are handed over with
    /// a ``ThreadSafeReference`` and resolved in a Realm confined to `actor`, and the block gets
    /// the sections of those results. The section key is computed on the actor (as Realm computes
    /// it off the caller's thread too, it must read only the element it is given).
    ///
    /// ```swift
    /// let token = await byInitial.observe(on: watcher) { watcher, change in
    ///     if case .update(let sections, _, _, _, _, _) = change { watcher.keys = sections.allKeys }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPaths: Property paths whose changes count as modifications (nil: all).
    ///   - actor: The actor to deliver on.
    ///   - block: Called, isolated to `actor`, with each change. A change of sections has no error
    ///     case: when the Realm cannot be opened on `actor`, no block runs and the failure is
    ///     logged through the configuration's `logger`.
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<SectionedResults>) -> Void
    ) async -> NotificationToken {
        let parts = SectioningParts(keyPathName: keyPathName, sectionKey: sectionKey)
        return await results.observeHandedOver(on: actor) { actor, results, observation in
            parts.sections(of: results).observe(keyPaths: keyPaths, on: nil) { change in
                if observation.isWanted { block(actor, change) }
            }
        }
    }
}

extension SectionedResults where SectionElement: ObjectBase {
    /// Registers a block called with the sections' changes, key paths given as Swift key paths
    /// (`[\Dog.name]`); see the string key paths variant.
    ///
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe(keyPaths: [PartialKeyPath<SectionElement>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observe(keyPaths: KeyPathTracer.observedNames(keyPaths), on: queue, block)
    }
}

extension SectionedResults where SectionElement: ObjectBase, Key: SendableMetatype {
    /// Registers a block that runs isolated to `actor`, key paths given as Swift key paths; see
    /// the string key paths variant.
    ///
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe<A: Actor>(
        keyPaths: [PartialKeyPath<SectionElement>], on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<SectionedResults>) -> Void
    ) async -> NotificationToken {
        await observe(keyPaths: KeyPathTracer.observedNames(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension ResultsSection where Element: SendableMetatype, Key: SendableMetatype {
    /// Registers a block that runs isolated to `actor` with this section's changes, as the
    /// sectioned results' `observe(keyPaths:on:_:)` for actors does for all sections.
    ///
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<ResultsSection>) -> Void
    ) async -> NotificationToken {
        let parts = SectioningParts(keyPathName: parent.keyPathName, sectionKey: parent.sectionKey, key: key)
        return await parent.results.observeHandedOver(on: actor) { actor, results, observation in
            let section = ResultsSection(parent: parts.sections(of: results), key: parts.key!)
            return section.observe(keyPaths: keyPaths, on: nil) { change in
                if observation.isWanted { block(actor, change) }
            }
        }
    }
}

extension ResultsSection where Element: ObjectBase {
    /// Registers a block called with this section's changes, key paths given as Swift key paths.
    ///
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        observe(keyPaths: KeyPathTracer.observedNames(keyPaths), on: queue, block)
    }
}

extension ResultsSection where Element: ObjectBase, Key: SendableMetatype {
    /// Registers a block that runs isolated to `actor`, key paths given as Swift key paths.
    ///
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe<A: Actor>(
        keyPaths: [PartialKeyPath<Element>], on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<ResultsSection>) -> Void
    ) async -> NotificationToken {
        await observe(keyPaths: KeyPathTracer.observedNames(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

/// What makes sections of results, carried to the actor that observes them.
///
/// Safety: `@unchecked Sendable` because the section key block is called on the observing
/// actor, as Realm calls it off the caller's thread too: it must read only the element it is
/// given (its documentation says so). The key of a section is a value read there, never written.
private final class SectioningParts<Key: _Persistable & Hashable, Element: RealmCollectionValue>: @unchecked Sendable {
    let keyPathName: String?
    let sectionKey: (Element) -> Key
    let key: Key?

    init(keyPathName: String?, sectionKey: @escaping (Element) -> Key, key: Key? = nil) {
        self.keyPathName = keyPathName
        self.sectionKey = sectionKey
        self.key = key
    }

    func sections(of results: Results<Element>) -> SectionedResults<Key, Element> {
        SectionedResults(results: results, keyPathName: keyPathName, sectionKey: sectionKey)
    }
}

extension Results {
    /// Hands the results over to a Realm confined to `actor` and lets `register` observe them
    /// there (checking the observation's `isWanted` before each block).
    fileprivate func observeHandedOver<A: Actor>(
        on actor: A, _isolation: isolated (any Actor)? = #isolation,
        register: @Sendable @escaping (isolated A, Results, QueueObservation) -> NotificationToken
    ) async -> NotificationToken {
        guard let realm else {
            preconditionFailure("Only collections which are managed by a Realm support change notifications")
        }
        realm.verifyThread()
        precondition(!realm.isInWriteTransaction, "Cannot register notification blocks from within write transactions.")
        let reference = ThreadSafeReference(to: self)
        let logger = realm.configuration.logger
        let observation = await registerHandedOverObserver(reference, configuration: realm.configuration, on: actor,
                                                           failed: { _, error in
            logger?.error("sectioned results could not be observed on an actor: its Realm did not open",
                          metadata: ["error": "\(error)"])
        }, register: register)
        return HandedOverToken(observation)
    }
}
