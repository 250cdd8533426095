import StrataSupport

extension Store {
    /// Runs `checkpoint`, one checkpoint's work, and records for ``statistics`` how long it took
    /// when it succeeds, or its error (as a ``StrataError``) and one more failure when it throws.
    ///
    /// - Throws: what `checkpoint` throws.
    func recordingCheckpoint(_ checkpoint: () throws -> Void) throws {
        let start = ContinuousClock.now
        let version = currentVersion
        do {
            try checkpoint()
        } catch {
            let failure = (error as? StrataError) ?? StrataError(.fileAccess, "\(error)", path: files?.path)
            state.withLockedValue {
                $0.checkpointRecord.failures += 1
                $0.checkpointRecord.lastFailure = failure
                $0.checkpointRecord.lastFailureVersion = version
            }
            throw error
        }
        let duration = ContinuousClock.now - start
        state.withLockedValue { $0.checkpointRecord.lastDuration = duration }
    }

    /// Registers `body` to be called with the error of every checkpoint the store started itself
    /// that failed (in the background after a commit, or at open after recovering a large log),
    /// on the thread that ran it, outside the store's locks. A checkpoint a caller asked for
    /// throws to that caller instead. Higher layers log these failures, so that none is silent.
    ///
    /// - Returns: an identifier for ``removeCheckpointFailureObserver(_:)``.
    package func addCheckpointFailureObserver(_ body: @escaping @Sendable (any Error) -> Void) -> Int {
        checkpointFailureObservers.withLockedValue { observers in
            defer { observers.nextID += 1 }
            observers.entries[observers.nextID] = body
            return observers.nextID
        }
    }

    /// Stops calling the observer registered under `id`.
    package func removeCheckpointFailureObserver(_ id: Int) {
        checkpointFailureObservers.withLockedValue { $0.entries[id] = nil }
    }

    /// Calls the checkpoint-failure observers with `error`, in registration order.
    func notifyCheckpointFailure(_ error: any Error) {
        let observers = checkpointFailureObservers.withLockedValue { state in
            state.entries.sorted { $0.key < $1.key }.map(\.value)
        }
        for observer in observers { observer(error) }
    }
}

/// The checkpoint-failure observers of a store.
struct CheckpointFailureObservers {
    var entries: [Int: @Sendable (any Error) -> Void] = [:]
    var nextID = 0
}
