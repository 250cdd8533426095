import GRDB

/// W7's commit instant: a transaction observer registered before the observations, whose
/// `databaseDidCommit` runs before theirs (GRDB notifies observers in registration order) and
/// stamps the monotonic clock.
final class GRDBCommitClock: TransactionObserver, @unchecked Sendable {
    // Safety: `stamp` is Locked.
    private let stamp = Locked<UInt64>(0)

    var lastCommit: UInt64 { stamp.current }

    /// Registers a clock on the writer of `pool` (alive as long as the returned clock).
    static func install(on pool: DatabasePool) throws -> GRDBCommitClock {
        let clock = GRDBCommitClock()
        pool.writeWithoutTransaction { $0.add(transactionObserver: clock, extent: .observerLifetime) }
        return clock
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { stamp.withLock { $0 = now() } }
    func databaseDidRollback(_ db: Database) {}
}
