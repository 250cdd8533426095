extension Realm {
    /// The bytes of commit-log records this Realm's store has appended since it was opened, by
    /// any Realm or thread (0 for an in-memory store, which has no log).
    ///
    /// The difference between two readings is what the commits in between cost: a version kept
    /// pinned (a frozen Realm, a snapshot paged through) keeps each later commit's changeset in
    /// memory, so a service can bound how much a pin it holds for a client may cost. Not part of
    /// Realm's API, nor of Strata's: SPI for the demo daemon in `Demo/`
    /// (`@_spi(StrataDaemon) import Strata`).
    ///
    /// - Complexity: O(1): one short lock.
    @_spi(StrataDaemon) public var committedLogBytes: UInt64 { store.statistics.logBytesAppended }
}
