import StrataSupport

/// The first failed sync of the commit log, remembered for every path that syncs or appends.
///
/// Linux reports a write-back error to one `fsync` only ("fsyncgate"): after a failed sync, a
/// later sync of the same file may succeed although the pages it was meant to cover were
/// dropped. So the first failure, whichever thread met it (a group-commit leader, a checkpoint),
/// poisons the log: every later ``sync(_:)``, ``check()`` and append throws
/// ``StrataError/Code/poisoned`` until the store is reopened (a new log, a new poison).
///
/// Syncs run one at a time: a sync that reports success never overlaps one that fails, so a
/// success always covers exactly what was written before it started.
///
/// The page file (see ``PageFile``) keeps one too, and also records failed writes in it.
final class SyncPoison: Sendable {
    /// What failed, as the poisoned error says it: "an earlier sync of the commit log".
    private let failedOperation: String

    /// Creates an unpoisoned state; `failedOperation` names what failed in the later errors.
    init(failedOperation: String = "an earlier sync of the commit log") {
        self.failedOperation = failedOperation
    }

    /// Held for the whole of one sync (no user code runs under it).
    private let syncing = LockedValueBox(())
    /// The first failure; read without waiting for a running sync.
    private let failure = LockedValueBox<StrataError?>(nil)

    /// The ``StrataError/Code/poisoned`` error every later operation gets, if a sync has failed.
    var error: StrataError? { failure.withLockedValue { $0 }.map(poisoned(by:)) }

    /// Throws ``StrataError/Code/poisoned`` when a sync has failed.
    func check() throws {
        if let error { throw error }
    }

    /// Runs `body` (one sync), unless an earlier one failed; if it fails, remembers its error.
    ///
    /// - Throws: the error of `body` the first time (``StrataError/Code/fileAccess`` from the
    ///   file), ``StrataError/Code/poisoned`` on every call after a failure.
    func sync(_ body: () throws -> Void) throws {
        try syncing.withLockedValue { (_: inout Void) throws in
            try check()
            do {
                try body()
            } catch {
                throw record(error)
            }
        }
    }

    /// Poisons the log with `error` (the first failure wins) and returns it as a `StrataError`.
    @discardableResult
    func record(_ error: any Error) -> StrataError {
        let failure = (error as? StrataError) ?? StrataError(.fileAccess, "sync failed: \(error)")
        self.failure.withLockedValue { if $0 == nil { $0 = failure } }
        return failure
    }

    private func poisoned(by failure: StrataError) -> StrataError {
        StrataError(.poisoned,
                    "\(failedOperation) failed (\(failure.message)); "
                        + "the store refuses writes until it is reopened",
                    path: failure.path, errno: failure.errno)
    }
}
