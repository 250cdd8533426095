import StrataSupport

/// Group commit: lets many committing threads share one `fdatasync`.
///
/// Each writer appends its record (under the engine's write lock), calls ``noteWritten(_:)``
/// with its version, releases the write lock and calls ``waitUntilDurable(_:sync:publish:)``.
/// The first waiter that finds no sync running becomes the leader: it syncs once for every record
/// written so far, publishes up to that version, then wakes the others, whose records the sync
/// covered. Writers that arrive while a sync runs queue up behind it and share the next one.
///
/// The first sync failure poisons the group: that waiter and every waiter whose version it did
/// not already make durable throws ``StrataError/Code/poisoned``; nothing reports success for
/// data that may not be on disk, and nothing reports failure for a version a successful sync
/// covered (it is published).
package final class GroupCommit: Sendable {
    private struct State {
        var written: UInt64
        var durable: UInt64
        var syncing = false
        var failure: StrataError?
        var syncCount: UInt64 = 0
        /// A moving average of how long a sync took, the bound of a leader's gathering.
        var typicalSync: Duration = .zero
    }

    /// The longest a leader waits for writers to join its group, however slow the syncs.
    package static let longestGathering: Duration = .milliseconds(2)

    private let state: LockedValueBox<State>

    /// Creates a group whose records up to `durableVersion` are already durable.
    package init(durableVersion: UInt64) {
        state = LockedValueBox(State(written: durableVersion, durable: durableVersion))
    }

    /// Records that the record of `version` has reached the kernel. Call in version order.
    package func noteWritten(_ version: UInt64) {
        state.withLockedValue { $0.written = max($0.written, version) }
    }

    /// The ``StrataError/Code/poisoned`` error every later commit gets, if a sync has failed.
    package var failure: StrataError? { state.withLockedValue { $0.failure }.map(Self.poisoned(by:)) }

    /// How many syncs have run: with several writers it is smaller than the number of commits.
    package var syncCount: UInt64 { state.withLockedValue { $0.syncCount } }

    /// Blocks until the record of `version` is durable and published.
    ///
    /// - Parameters:
    ///   - gather: called by the leader before its sync, without any lock held, with how long it
    ///     may wait: returns once the writers in a write transaction (or waiting for one) have
    ///     written their records (``noteWritten(_:)``), or when that time has passed. A writer
    ///     that joins this way shares the leader's sync instead of waiting for the next one.
    ///   - sync: makes every written record durable; called by the leader without any lock held.
    ///   - publish: makes every version up to its argument visible; called by the leader after a
    ///     successful sync and before any waiter is released, with versions that never decrease.
    /// - Throws: ``StrataError/Code/poisoned`` when this or an earlier sync failed and no
    ///   successful sync covered `version`.
    package func waitUntilDurable(
        _ version: UInt64,
        gather: (Duration) -> Void = { _ in },
        sync: () throws -> Void,
        publish: (UInt64) -> Void
    ) throws {
        while true {
            // The leader's bound on gathering; nil when this writer's record is durable.
            let bound: Duration? = try state.wait(until: { $0.failure != nil || $0.durable >= version || !$0.syncing }) {
                (state) throws -> Duration? in
                // Durable first: a version an earlier, successful sync covered was published and
                // is on disk, so its writer returns even if a later sync has failed since (a
                // writer descheduled between writing and waiting would otherwise report a
                // failure for a commit that readers already see).
                if state.durable >= version { return nil }
                if let failure = state.failure { throw Self.poisoned(by: failure) }
                state.syncing = true
                return state.typicalSync
            }
            guard let bound else { return }
            gather(min(bound, Self.longestGathering))
            let target = state.withLockedValue { $0.written }
            let started = ContinuousClock.now
            do {
                try sync()
            } catch {
                let error = (error as? StrataError) ?? StrataError(.fileAccess, "sync failed: \(error)")
                state.withLockedValue {
                    $0.failure = error
                    $0.syncing = false
                }
                state.broadcast()
                throw Self.poisoned(by: error)
            }
            let took = ContinuousClock.now - started
            publish(target)
            state.withLockedValue {
                // An average over about the last eight syncs.
                $0.typicalSync = $0.typicalSync == .zero ? took : ($0.typicalSync * 7 + took) / 8
                $0.durable = target
                $0.syncing = false
                $0.syncCount += 1
            }
            state.broadcast()
        }
    }

    private static func poisoned(by failure: StrataError) -> StrataError {
        if failure.code == .poisoned { return failure }
        return StrataError(.poisoned,
                    "an earlier sync of the commit log failed (\(failure.message)); "
                        + "the store refuses writes until it is reopened",
                    path: failure.path, errno: failure.errno)
    }
}
