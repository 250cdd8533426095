import StrataSupport

/// Group commit: lets many committing threads share one `fdatasync`.
///
/// Each writer appends its record (under the engine's write lock), calls ``noteWritten(_:)``
/// with its version, releases the write lock and calls ``waitUntilDurable(_:sync:publish:)``.
/// The first waiter that finds no sync running becomes the leader: it syncs once for every record
/// written so far, publishes up to that version, then wakes the others, whose records the sync
/// covered. Writers that arrive while a sync runs queue up behind it and share the next one.
///
/// Before it syncs, a leader lets the writers already in a write transaction (or waiting for
/// one) join its group, waiting for them at most about as long as a sync takes (see
/// ``waitUntilDurable(_:gather:sync:publish:)``). Without this, writers released by one sync
/// commit during the next and share the one after: with four writers the groups settled at two
/// commits each. A wait that ran out without gaining a record (a writer in a long transaction)
/// makes the next leaders skip it for a while.
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
        /// Gatherings in a row that waited out their bound and gained no record.
        var fruitlessGatherings = 0
        /// Leaders still to sync without gathering, after fruitless gatherings.
        var gatheringsToSkip = 0

        /// How long the next leader may gather: nothing while it is to skip (see
        /// ``noteGathering(timedOut:gained:)``).
        mutating func takeGatheringBound() -> Duration {
            guard gatheringsToSkip == 0 else {
                gatheringsToSkip -= 1
                return .zero
            }
            return min(typicalSync, GroupCommit.longestGathering)
        }

        /// Records how a gathering ended. One that waited out its bound without a record written
        /// meanwhile (a writer in a long transaction, say) makes the next 1, 3, 7, … 63 leaders
        /// sync at once, so such a writer costs the others little; one that gained a record
        /// starts the count again.
        mutating func noteGathering(timedOut: Bool, gained: Bool) {
            if gained {
                fruitlessGatherings = 0
            } else if timedOut {
                fruitlessGatherings = min(fruitlessGatherings + 1, 6)
                gatheringsToSkip = (1 << fruitlessGatherings) - 1
            }
        }
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
    ///     may wait (zero: not at all): returns true once the writers in a write transaction (or
    ///     waiting for one) have written their records (``noteWritten(_:)``), false when that time
    ///     has passed first. A writer that joins this way shares the leader's sync instead of
    ///     waiting for the next one.
    ///   - sync: makes every written record durable; called by the leader without any lock held.
    ///   - publish: makes every version up to its argument visible; called by the leader after a
    ///     successful sync and before any waiter is released, with versions that never decrease.
    /// - Throws: ``StrataError/Code/poisoned`` when this or an earlier sync failed and no
    ///   successful sync covered `version`.
    package func waitUntilDurable(
        _ version: UInt64,
        gather: (Duration) -> Bool = { _ in true },
        sync: () throws -> Void,
        publish: (UInt64) -> Void
    ) throws {
        while true {
            // The leader's bound on gathering and the records written before it; nil when this
            // writer's record is durable.
            let leader: (bound: Duration, written: UInt64)? = try state.wait(until: { $0.failure != nil || $0.durable >= version || !$0.syncing }) {
                (state) throws -> (bound: Duration, written: UInt64)? in
                // Durable first: a version an earlier, successful sync covered was published and
                // is on disk, so its writer returns even if a later sync has failed since (a
                // writer descheduled between writing and waiting would otherwise report a
                // failure for a commit that readers already see).
                if state.durable >= version { return nil }
                if let failure = state.failure { throw Self.poisoned(by: failure) }
                state.syncing = true
                return (state.takeGatheringBound(), state.written)
            }
            guard let leader else { return }
            let gathered = leader.bound == .zero || gather(leader.bound)
            let target = state.withLockedValue { state in
                if leader.bound > .zero {
                    state.noteGathering(timedOut: !gathered, gained: state.written > leader.written)
                }
                return state.written
            }
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
