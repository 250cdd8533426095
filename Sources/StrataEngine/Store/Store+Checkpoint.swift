import Dispatch
import StrataStorage
import StrataSupport

extension Store {
    /// Writes a checkpoint of the newest version now and trims the log it covers.
    ///
    /// The log is synced and rotated while writers are briefly held off; then the tree nodes that
    /// changed since the previous checkpoint are written into free pages of the page file, with
    /// a new catalog and free list, synced, and the header switched and synced (see
    /// ``StorePages``); finally the log segments it covers are deleted. A crash at any point
    /// leaves either the old checkpoint with its log or the new one.
    /// Does nothing for an in-memory store. When a checkpoint is already running (a background
    /// one), waits for it first.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when a file cannot be written (the previous
    ///   checkpoint and the log stay valid); ``StrataError/Code/logRotationFailed`` when the new
    ///   log segment cannot be created (no descriptor left, no space for a new file): nothing
    ///   was written, commits go on in the current segment, and a later checkpoint retries.
    package func checkpoint() throws {
        guard let files else { return }
        // One checkpoint at a time: a call made while one runs waits for it, then writes its own
        // (of a newer version), so a caller always gets a checkpoint of the newest version.
        try checkpointSerial.withLockedValue { (_: inout Void) throws in
            state.withLockedValue { $0.checkpointRunning = true }
            defer { state.withLockedValue { $0.checkpointRunning = false } }
            try recordingCheckpoint { try writeCheckpoint(files) }
        }
    }

    /// Rewrites the page file compactly: a new file holding the newest version in as few pages
    /// as it needs, none free, renamed over the old one; then trims the log it covers.
    ///
    /// Runs as a checkpoint does (see ``checkpoint()``): writers are held off only while the log
    /// is synced and rotated. A crash at any point leaves the old file with its log or the new
    /// one. Does nothing for an in-memory store.
    ///
    /// - Throws: ``StrataError/Code/readOnly``; ``StrataError/Code/fileAccess`` when the new file
    ///   cannot be written (the old one and the log stay valid).
    package func compact() throws {
        guard let files else { return }
        guard !configuration.readOnly else {
            throw StrataError(.readOnly, "a store opened read-only cannot be compacted", path: files.path)
        }
        try checkpointSerial.withLockedValue { (_: inout Void) throws in
            state.withLockedValue { $0.checkpointRunning = true }
            defer { state.withLockedValue { $0.checkpointRunning = false } }
            try recordingCheckpoint { try writeCheckpoint(files, compacting: true) }
        }
    }

    /// Whether this call is the first to ask since the store was opened in this process: the
    /// moment `Realm.Configuration.shouldCompactOnLaunch` is consulted.
    package func claimFirstOpen() -> Bool {
        state.withLockedValue { state in
            defer { state.firstOpenClaimed = true }
            return !state.firstOpenClaimed
        }
    }

    /// Reads and checks every page of the store file's last checkpoint (see
    /// ``StorePages/verify()``): an integrity check that reports damage as a typed error, where a
    /// read of a damaged page through the store stops the process.
    ///
    /// - Returns: the number of pages in use (0 for an in-memory store).
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page.
    package func verifyFile() throws -> Int {
        try checkpointSerial.withLockedValue { _ in try files?.pages?.verify() ?? 0 }
    }

    /// The page file's size and the bytes its checkpoint uses (nil for an in-memory or a
    /// read-only store without a page file).
    package var fileUsage: (total: UInt64, used: UInt64)? { files?.pages?.usage }

    /// The node cache's estimated resident bytes, the leaves it evicted since the store opened,
    /// and the estimated bytes of the leaves changed since the last checkpoint (see
    /// ``NodeCache/dirtyBytes``); nil for an in-memory store. See ``StoreConfiguration/cacheSize``.
    package var cacheUsage: (residentBytes: Int, evictions: Int, dirtyBytes: Int)? {
        files?.cache.map { ($0.residentBytes, $0.evictions, $0.dirtyBytes) }
    }

    /// How many tree nodes the store read from its page file since it opened (nil in memory).
    package var nodeReads: Int? { files?.cache?.nodeReads }

    private func writeCheckpoint(_ files: StoreFiles, compacting: Bool = false) throws {
        acquireWriteGate()
        let snapshot: Snapshot
        let dirtyBytes: Int
        do {
            defer { endWrite() }
            if let poison = poisonError { throw poison }
            // A failure poisons the log itself, so a group-commit waiter cannot sync past it.
            try files.log.sync()
            publishPending(upTo: writerHead.version)
            snapshot = writerHead
            // A current segment without records (a crash stopped the previous checkpoint right
            // after its rotation) already starts at this version: the checkpoint names it, and
            // repeated crashes in the checkpoint window add no segment.
            if !files.log.currentSegmentIsEmpty { try files.log.rotate() }
            // The leaves changed so far are this checkpoint's to write (see `NodeCache.dirtyBytes`).
            dirtyBytes = files.cache?.takeDirtyBytes() ?? 0
        }
        state.withLockedValue { $0.checkpointWritingPages = true }
        defer {
            state.withLockedValue { $0.checkpointWritingPages = false }
            state.broadcast()
        }
        do {
            if compacting { try files.compact(snapshot) } else { try files.writeCheckpoint(snapshot) }
        } catch {
            files.cache?.restoreDirtyBytes(dirtyBytes)
            throw error
        }
        try files.log.removeSealedSegments()
        state.withLockedValue {
            $0.checkpoints += 1
            $0.checkpointRetryAfter = nil
            $0.failedCheckpointsInARow = 0
        }
    }

    /// After recovery: checkpoints at once when the log the store was recovered from is larger
    /// than ``StoreConfiguration/checkpointThreshold`` (a crash stopped the checkpoint that
    /// would have trimmed it), so that the next open reads a bounded log, however often the
    /// process is stopped in its checkpoints; otherwise, when the open replayed any record,
    /// checkpoints them before the open returns (see ``StoreConfiguration/checkpointsAfterReplay``),
    /// so that the next open replays nothing even when this process is killed right after, and the
    /// leaves the replay changed (which the cache cannot drop before a checkpoint writes them)
    /// become the cache's to bound. A failure is kept in ``statistics`` and the open goes on (a
    /// later commit, or the release of the store, retries the checkpoint). A read-only store
    /// writes nothing. After it, the heap's free memory goes back to the kernel (see
    /// ``HeapTrimming/releaseFreeMemory()``).
    ///
    /// Before the open returns rather than in the background: measured at 5M rows after a
    /// `kill -9` with 60 MB of log, 16 MiB cache, the open took 1.33 s and held 28 MB of anonymous
    /// memory when it returned; with a background checkpoint it took 0.88 s but held 145 MB until
    /// the checkpoint ended 0.42 s later, and a background checkpoint keeps the store open after
    /// its last Realm is released (another process cannot open it meanwhile).
    func checkpointAfterRecovery() {
        guard let files, !configuration.readOnly else { return }
        if files.log.totalSize > configuration.checkpointThreshold {
            runCheckpoint(.recoveredLog)
        } else if replayedLog.records > 0 && configuration.checkpointsAfterReplay {
            runCheckpoint(.replay)
        }
        // The records read back are freed by now, and the replayed leaves the cache's.
        if replayedLog.records > 0 { HeapTrimming.releaseFreeMemory() }
    }

    /// Runs a checkpoint the store starts itself (in the background, after recovery, or when its
    /// last user lets go; not a caller's ``checkpoint()``) and records its outcome: the one place
    /// where such a checkpoint's result is reported. A failure is kept in ``statistics`` (and
    /// delays the next checkpoint commits start, see `noteCheckpointFailure`); it never throws.
    ///
    /// - Returns: the outcome.
    @discardableResult
    func runCheckpoint(_ trigger: CheckpointTrigger) -> Result<Void, any Error> {
        let outcome = Result { try checkpoint() }
        if case .failure(let error) = outcome { noteCheckpointFailure(error) }
        return outcome
    }

    /// Records a failed checkpoint for ``statistics``, tells the checkpoint-failure observers
    /// (see ``addCheckpointFailureObserver(_:)``), and holds commits off starting another
    /// for ``checkpointRetryDelay(afterFailures:)``: the log stays over the threshold after a
    /// failure (a failed log rotation, see ``StrataError/Code/logRotationFailed``, or pages that
    /// could not be written after the rotation), and a retry at every commit would cost a sync
    /// per commit, and a new log segment per commit when the rotation succeeds.
    private func noteCheckpointFailure(_ error: any Error) {
        defer { notifyCheckpointFailure(error) }
        state.withLockedValue {
            $0.lastCheckpointError = "\(error)"
            $0.failedCheckpointsInARow += 1
            let delay = Self.checkpointRetryDelay(afterFailures: $0.failedCheckpointsInARow)
            $0.checkpointRetryAfter = ContinuousClock.now + delay
        }
    }

    /// How long after the `failures`-th failed checkpoint in a row commits wait before they start
    /// another: 1 s, doubling with each failure, at most a minute.
    static func checkpointRetryDelay(afterFailures failures: Int) -> Duration {
        min(.seconds(1 << min(max(failures - 1, 0), 6)), .seconds(60))
    }

    /// Starts a background checkpoint when the log has grown past the threshold (every segment
    /// since the last checkpoint, see ``CommitLog/totalSize``), or the leaves changed since the
    /// last checkpoint take more memory than the cache allows them (see ``NodeCache/dirtyLimit``),
    /// unless one the store started failed too recently (see `noteCheckpointFailure`). Called by a writer after its commit, holding nothing;
    /// when the changed leaves pass twice the limit while a checkpoint writes its pages (writers
    /// outpacing it), the writer waits for that checkpoint, which needs nothing from writers by
    /// then, so that they stay bounded.
    ///
    /// The work reaches the store weakly (a store closed before it starts is not checkpointed:
    /// its log is replayed at the next open) and holds it only while it runs; it is counted in
    /// ``backgroundCheckpoints`` until that reference is released, so closing code can wait for
    /// it (see ``StoreRegistry/whileClosed(_:_:)``).
    func scheduleCheckpointIfNeeded() {
        guard let files else { return }
        let dirty = files.cache.map { (bytes: $0.dirtyBytes, limit: $0.dirtyLimit) }
        guard files.log.totalSize > configuration.checkpointThreshold
                || dirty.map({ $0.bytes > $0.limit }) == true else { return }
        let idle = state.withLockedValue { state in
            !state.checkpointRunning && state.checkpointRetryAfter.map { ContinuousClock.now >= $0 } != false
        }
        guard idle else {
            if let dirty, dirty.bytes / 2 > dirty.limit {
                state.wait(until: { !$0.checkpointWritingPages }, then: { _ in })
            }
            return
        }
        startBackgroundCheckpoint(.logOrCache)
    }

    /// Starts a checkpoint on a background queue (see ``scheduleCheckpointIfNeeded()``).
    func startBackgroundCheckpoint(_ trigger: CheckpointTrigger) {
        let counter = backgroundCheckpoints
        counter.begin()
        DispatchQueue.global(qos: .utility).async { [weak self] in
            Self.runBackgroundCheckpoint(of: self, trigger)
            counter.end()
        }
    }

    /// A background checkpoint's work; the store reference ends when this returns (when it is
    /// the last one, the store's release runs here).
    private static func runBackgroundCheckpoint(of store: Store?, _ trigger: CheckpointTrigger) {
        store?.runCheckpoint(trigger)
    }
}
