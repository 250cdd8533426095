@_spi(StrataDaemon) import StrataSupport

extension RealmCollection {
    /// Registers a block as ``observe(validatingKeyPaths:on:_:)`` does without a queue (checking
    /// `keyPaths` first), with the notifier's computations for it held to `budget` from the
    /// first on: the initial result to ``ComputeBudget/initial``, each change to
    /// ``ComputeBudget/perChange``. Past a limit the block receives nothing more and
    /// ``ComputeBudget/onExceeded`` runs on the thread that computed; invalidate the token then.
    /// With an initial limit, the initial result is computed beside the notifier worker, one such
    /// at a time (other observers' changes do not wait for it), and never by a delivery on this
    /// Realm's thread (with autorefresh off, a Realm that delivers `.initial` at its own version
    /// still computes it there). For services that must not let one observer starve the others
    /// (``NotificationToken/limitComputeCost(to:onExceeded:)`` set after registering cannot hold
    /// the initial result: the worker may already be computing it). Not part of Realm's API, nor
    /// of Strata's: SPI for the demo daemon in `Demo/` (`@_spi(StrataDaemon) import Strata`).
    ///
    /// - Parameters:
    ///   - keyPaths: Property paths of the elements whose changes count as modifications.
    ///   - budget: The CPU time each computation may take (nil: unbounded).
    ///   - block: Called with each change, on this Realm's scheduler.
    /// - Returns: A token; keep it for as long as you want notifications.
    /// - Throws: ``Realm/Error`` with code `invalidQuery` for a key path that names no property
    ///   (see ``observe(validatingKeyPaths:on:_:)``); nothing is registered then.
    @_spi(StrataDaemon) public func observe(
        validatingKeyPaths keyPaths: [String]?, budget: ComputeBudget?,
        _ block: @escaping (RealmCollectionChange<Self>) -> Void
    ) throws -> NotificationToken {
        try validateObserved(keyPaths)
        return observe(keyPaths: keyPaths, budget: budget, block)
    }

    /// Registers `block` on this Realm's scheduler, the notifier held to `budget` (nil: not held).
    func observe(keyPaths: [String]?, budget: ComputeBudget?,
                 _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        let results = _asResults
        let collection = self
        return results.source.addNotifier(results.query, realm: results.owner, keyPaths: keyPaths,
                                          cache: results.cache, budget: budget) { change in
            switch change {
            case nil: block(.initial(collection))
            case let change?:
                block(.update(collection, deletions: change.deletions, insertions: change.insertions,
                              modifications: change.modifications))
            }
        }
    }
}
