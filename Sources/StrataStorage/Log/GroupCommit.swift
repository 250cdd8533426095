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
    }

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
    ///   - sync: makes every written record durable; called by the leader without any lock held.
    ///   - publish: makes every version up to its argument visible; called by the leader after a
    ///     successful sync and before any waiter is released, with versions that never decrease.
    /// - Throws: ``StrataError/Code/poisoned`` when this or an earlier sync failed and no
    ///   successful sync covered `version`.
    package func waitUntilDurable(
        _ version: UInt64,
        sync: () throws -> Void,
        publish: (UInt64) -> Void
    ) throws {
        while true {
            let target: UInt64? = try state.wait(until: { $0.failure != nil || $0.durable >= version || !$0.syncing }) {
                (state) throws -> UInt64? in
                // Durable first: a version an earlier, successful sync covered was published and
                // is on disk, so its writer returns even if a later sync has failed since (a
                // writer descheduled between writing and waiting would otherwise report a
                // failure for a commit that readers already see).
                if state.durable >= version { return nil }
                if let failure = state.failure { throw Self.poisoned(by: failure) }
                state.syncing = true
                return state.written
            }
            guard let target else { return }
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
            publish(target)
            state.withLockedValue {
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
