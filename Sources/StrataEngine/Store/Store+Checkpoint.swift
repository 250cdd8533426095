import Dispatch
import StrataStorage
import StrataSupport

extension Store {
    /// Writes a checkpoint of the newest version now and trims the log it covers.
    ///
    /// The log is synced and rotated while writers are briefly held off; the snapshot is then
    /// encoded and written to `<path>.tmp`, synced, and renamed over `<path>` with the
    /// directory synced; finally the log segments it covers are deleted. A crash at any point
    /// leaves either the old checkpoint with its log or the new one.
    /// Does nothing for an in-memory store.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when a file cannot be written (the previous
    ///   checkpoint and the log stay valid).
    package func checkpoint() throws {
        guard let files else { return }
        let claimed = state.withLockedValue { state -> Bool in
            guard !state.checkpointRunning else { return false }
            state.checkpointRunning = true
            return true
        }
        guard claimed else { return }
        defer { state.withLockedValue { $0.checkpointRunning = false } }

        acquireWriteGate()
        let snapshot: Snapshot
        do {
            defer { endWrite() }
            if let poison = poisonError { throw poison }
            // A failure poisons the log itself, so a group-commit waiter cannot sync past it.
            try files.log.sync()
            publishPending(upTo: writerHead.version)
            snapshot = writerHead
            try files.log.rotate()
        }
        try files.writeCheckpoint(version: snapshot.version, payload: snapshot.encoded())
        try files.log.removeSealedSegments()
        state.withLockedValue { $0.checkpoints += 1 }
    }

    /// Starts a background checkpoint when the current log segment has grown past the threshold.
    func scheduleCheckpointIfNeeded() {
        guard let files, files.log.currentSegmentSize > configuration.checkpointThreshold else { return }
        let idle = state.withLockedValue { !$0.checkpointRunning }
        guard idle else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            do {
                try checkpoint()
            } catch {
                state.withLockedValue { $0.lastCheckpointError = "\(error)" }
            }
        }
    }
}
