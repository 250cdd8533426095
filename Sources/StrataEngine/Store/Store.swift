import Dispatch
import StrataStorage
import StrataSupport

/// A versioned, durable object store: the MVCC engine under Strata's Realm API.
///
/// Readers take a ``Snapshot`` (``currentSnapshot`` or a counted ``pin()``) and read it without
/// locks while writers go on. One ``WriteTransaction`` is open at a time; its commit appends one
/// checksummed record to the commit log, is acknowledged once durable under the configured
/// ``Durability``, and becomes visible to new snapshots in commit order. Concurrent committers
/// share log syncs (group commit).
///
/// ```swift
/// let store = try Store.open(.file("/var/lib/app/data.strata"))
/// let people = try store.write { tx in
///     try tx.createTable(TableSchema(name: "Person", columns: [ColumnSchema("name", .string)]))
/// }
/// try store.write { tx in _ = try tx.insertObject(into: people, values: [.string("Ada")]) }
/// print(store.currentSnapshot.table(people)!.count)  // 1
/// ```
///
/// Opening the same path (or in-memory identifier) twice in one process returns the same
/// instance; another process gets ``StrataError/Code/alreadyOpenInAnotherProcess``.
package final class Store: @unchecked Sendable {
    // Safety: `writerHead` is read and written only by the holder of the write gate
    // (`beginWrite` … `endWrite`), and the gate orders those accesses between threads (its
    // mutex, and the semaphore a release hands the gate over with).
    // Everything else shared is inside a `LockedValueBox` or immutable.

    /// The configuration the store was opened with.
    package let configuration: StoreConfiguration
    let files: StoreFiles?
    let groupCommit: GroupCommit?
    let state: LockedValueBox<PublishedState>
    /// Held for the whole of one checkpoint.
    let checkpointSerial = LockedValueBox(())
    /// The background checkpoints under way (see ``scheduleCheckpointIfNeeded()``).
    let backgroundCheckpoints = BackgroundCheckpoints()
    /// Writers (and checkpoints) get the write transaction in arrival order.
    private let writeGate = WriteGate()
    /// Called after each publish (see `addPublishObserver`).
    let publishObservers = LockedValueBox(PublishObservers())
    /// Called when a checkpoint the store started fails (see `addCheckpointFailureObserver`).
    let checkpointFailureObservers = LockedValueBox(CheckpointFailureObservers())
    /// Per-store objects of higher layers (see `attachment(_:make:)`).
    let attachments = LockedValueBox<[String: any AnyObject & Sendable]>([:])
    /// The store's key in ``StoreRegistry``, which its `deinit` hands back.
    let registryKey: String
    /// What the open replayed of the commit log (nothing for an in-memory store).
    package let replayedLog: ReplayedLog

    var writerHead: Snapshot

    struct PublishedState {
        var published: Snapshot
        /// Commits written to the log but not yet durable (`.full` only), oldest first.
        var pending: [(snapshot: Snapshot, changeset: Changeset)] = []
        var pins: [UInt64: Int] = [:]
        /// Every live pin, by ``PinnedSnapshot/id``: its version and what holds it.
        var pinRecords: [Int: PinRecord] = [:]
        var nextPinID = 0
        /// Changesets newer than the oldest pinned version, oldest first.
        var history: [Changeset] = []
        var poison: StrataError?
        /// The newest version whose record is in the commit log, durable or not.
        var loggedVersion: UInt64
        var commits: UInt64 = 0
        var checkpoints: UInt64 = 0
        var checkpointRunning = false
        /// Whether a checkpoint is writing its pages (past its brief hold on writers): what a
        /// writer that changed leaves too fast waits for (see ``scheduleCheckpointIfNeeded()``).
        var checkpointWritingPages = false
        /// Whether ``claimFirstOpen()`` has been called.
        var firstOpenClaimed = false
        var lastCheckpointError: String?
        /// The checkpoints the store started itself (or ran when asked) that failed, since open,
        /// their last error and how long the last successful one took (see ``StoreStatistics``).
        var checkpointRecord = CheckpointRecord()
        /// Set when a checkpoint the store started failed: no commit starts one before then.
        var checkpointRetryAfter: ContinuousClock.Instant?
        /// The checkpoints the store started that failed since the last one that succeeded.
        var failedCheckpointsInARow = 0
    }

    /// Opens (creating if needed) the store described by `configuration`, recovering it from its
    /// checkpoint and commit log. When the log read back is larger than
    /// ``StoreConfiguration/checkpointThreshold`` (crashes stopped the checkpoints that would have
    /// trimmed it), a checkpoint runs before this returns; its failure does not fail the open.
    ///
    /// - Throws: ``StrataError/Code/alreadyOpenInAnotherProcess``,
    ///   ``StrataError/Code/fileNotFound`` (read-only and missing),
    ///   ``StrataError/Code/invalidFileFormat`` (not a Strata file),
    ///   ``StrataError/Code/corruptFile`` (damage other than a torn tail, with file and offset),
    ///   ``StrataError/Code/fileAccess``.
    package static func open(_ configuration: StoreConfiguration) throws -> Store {
        try StoreRegistry.shared.open(configuration) { key in
            let store = try Store(configuration: configuration, registryKey: key)
            store.checkpointAfterRecovery()
            return store
        }
    }

    private init(configuration: StoreConfiguration, registryKey: String) throws {
        self.configuration = configuration
        self.registryKey = registryKey
        let snapshot: Snapshot
        switch configuration.location {
        case .inMemory:
            files = nil
            groupCommit = nil
            snapshot = .empty
            replayedLog = ReplayedLog()
        case .file(let path):
            HeapTrimming.applyOnce()
            let recovered = try StoreFiles.recover(path: path, readOnly: configuration.readOnly,
                                                   cache: NodeCache(capacity: configuration.cacheSize))
            files = recovered.files
            snapshot = recovered.snapshot
            replayedLog = recovered.replayed
            groupCommit = configuration.durability == .full ? GroupCommit(durableVersion: snapshot.version) : nil
            if configuration.durability == .full && !configuration.readOnly {
                recovered.files.log.preallocate(inStepsOf: configuration.logPreallocationStep)
            }
        }
        writerHead = snapshot
        state = LockedValueBox(PublishedState(published: snapshot, loggedVersion: snapshot.version))
    }

    /// The last user of the store let go (every Realm, frozen object, thread-safe reference and
    /// notifier of it, and any background checkpoint): checkpoints what the log holds (see
    /// ``checkpointOnRelease()``), then ends the close in ``StoreRegistry``, so an open of the
    /// same path waiting for it goes on.
    deinit {
        checkpointOnRelease()
        StoreRegistry.shared.didClose(registryKey, identity: ObjectIdentifier(self))
    }

    // MARK: - Reading

    /// The newest visible snapshot, unpinned.
    ///
    /// Reading it is always safe; it is not counted as an active version and the store does
    /// not keep changesets for it (use ``pin()`` for that).
    ///
    /// - Complexity: O(1): one short lock to copy a reference.
    package var currentSnapshot: Snapshot { state.withLockedValue { $0.published } }

    /// The newest visible version.
    package var currentVersion: UInt64 { state.withLockedValue { $0.published.version } }

    /// Pins the newest visible snapshot.
    ///
    /// - Throws: ``StrataError/Code/tooManyActiveVersions`` when this would make more distinct
    ///   versions pinned than ``StoreConfiguration/maximumNumberOfActiveVersions`` allows.
    /// - Complexity: O(1).
    package func pin(holder: PinHolder = .unlabelled) throws -> PinnedSnapshot {
        let limit = configuration.maximumNumberOfActiveVersions
        let (snapshot, id) = try state.withLockedValue { state throws -> (Snapshot, Int) in
            let version = state.published.version
            if state.pins[version] == nil, let limit, limit > 0, state.pins.count >= limit {
                throw Self.tooManyActiveVersions(state.pins.count + 1, limit: limit)
            }
            return (state.published, Self.addPin(of: state.published.version, holder: holder, to: &state))
        }
        return PinnedSnapshot(snapshot: snapshot, id: id, store: self)
    }

    /// Counts a pin of `version` held by `holder`.
    ///
    /// - Returns: the pin's id.
    static func addPin(of version: UInt64, holder: PinHolder, to state: inout PublishedState) -> Int {
        state.pins[version, default: 0] += 1
        defer { state.nextPinID += 1 }
        state.pinRecords[state.nextPinID] = PinRecord(version: version, holder: holder)
        return state.nextPinID
    }

    func unpin(_ version: UInt64, id: Int) {
        state.withLockedValue { state in
            state.pinRecords[id] = nil
            guard let count = state.pins[version] else { return }
            state.pins[version] = count > 1 ? count - 1 : nil
            Self.trimHistory(&state)
        }
    }

    func relabelPin(_ id: Int, _ holder: PinHolder) {
        state.withLockedValue { $0.pinRecords[id]?.holder = holder }
    }

    /// The changesets that lead from `version` to the newest visible version, oldest first, or
    /// nil when they are no longer kept (`version` is older than every pinned version).
    ///
    /// - Complexity: O(log h + k) for k changesets.
    package func changesets(after version: UInt64) -> [Changeset]? {
        state.withLockedValue { state in
            let newest = state.published.version
            if version >= newest { return [] }
            guard let first = state.history.first, first.version <= version + 1 else { return nil }
            return Array(state.history[Int(version + 1 - first.version)...])
        }
    }

    /// Counters describing the store.
    package var statistics: StoreStatistics {
        let segments = files.map { ($0.log.segmentCount, $0.log.currentSegmentSize, $0.log.appendedBytes) } ?? (0, 0, 0)
        return state.withLockedValue { state in
            var statistics = StoreStatistics(
                publishedVersion: state.published.version, pinnedVersions: state.pins.count,
                retainedChangesets: state.history.count, commits: state.commits,
                groupSyncs: groupCommit?.syncCount ?? 0, checkpoints: state.checkpoints,
                logSegments: segments.0, logBytes: segments.1, logBytesAppended: segments.2,
                lastCheckpointError: state.lastCheckpointError)
            statistics.checkpoint = state.checkpointRecord
            statistics.heldVersions = Self.heldVersions(state)
            return statistics
        }
    }

    static func trimHistory(_ state: inout PublishedState) {
        guard let oldest = state.pins.keys.min() else {
            state.history.removeAll()
            return
        }
        let drop = state.history.prefix { $0.version <= oldest }.count
        state.history.removeFirst(drop)
    }

    // MARK: - Writing

    /// Starts the write transaction, waiting while another one is open.
    ///
    /// Every pin counts as an active version, also those that cannot fail (frozen Realms,
    /// notifiers, ``pin(again:)``, ``pinForNotifier()``). While more distinct versions are pinned
    /// than ``StoreConfiguration/maximumNumberOfActiveVersions`` allows, no write may begin, so
    /// no new version can be made and the number of active versions stays bounded (at most the
    /// limit plus the newest version, as in Realm, whose check is also at the start of a write).
    ///
    /// - Throws: ``StrataError/Code/readOnly``, ``StrataError/Code/poisoned`` after a failed
    ///   log sync, ``StrataError/Code/tooManyActiveVersions`` ("Number of active versions (N) in
    ///   the Realm exceeded the limit of M") while too many versions are pinned.
    package func beginWrite() throws -> WriteTransaction {
        try refuseWritesWhenReadOnly()
        acquireWriteGate()
        return try beginWriteHoldingGate()
    }

    /// Takes the write gate from a task without blocking its thread: suspends until the gate is
    /// free (see ``WriteGate``). Follow with ``beginWriteHoldingGate()``.
    ///
    /// - Throws: ``StrataError/Code/readOnly``, or `CancellationError` when the task is cancelled
    ///   before the gate is taken (the gate is then not held).
    package func acquireWriteGateSuspending() async throws {
        try refuseWritesWhenReadOnly()
        try await writeGate.acquireSuspending()
    }

    /// Starts the write transaction once the caller holds the write gate; releases the gate
    /// when it throws (the refusals of ``beginWrite()``).
    package func beginWriteHoldingGate() throws -> WriteTransaction {
        if let refusal = poisonError ?? activeVersionsError {
            endWrite()
            throw refusal
        }
        return WriteTransaction(store: self, base: writerHead)
    }

    /// Releases the write gate taken by ``acquireWriteGateSuspending()`` when no transaction
    /// was begun with it.
    package func releaseWriteGate() { endWrite() }

    private func refuseWritesWhenReadOnly() throws {
        guard !configuration.readOnly else {
            throw StrataError(.readOnly, "the store was opened read-only; writes are not allowed")
        }
    }

    /// The ``StrataError/Code/tooManyActiveVersions`` error while more distinct versions are
    /// pinned than the configuration allows.
    private var activeVersionsError: StrataError? {
        guard let limit = configuration.maximumNumberOfActiveVersions, limit > 0 else { return nil }
        let active = state.withLockedValue { $0.pins.count }
        guard active > limit else { return nil }
        return Self.tooManyActiveVersions(active, limit: limit)
    }

    static func tooManyActiveVersions(_ active: Int, limit: Int) -> StrataError {
        StrataError(.tooManyActiveVersions,
                    "Number of active versions (\(active)) in the Realm exceeded the limit of \(limit)")
    }

    /// Runs `body` in a write transaction and commits it; cancels it if `body` throws.
    ///
    /// - Returns: what `body` returns.
    package func write<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
        let transaction = try beginWrite()
        do {
            let result = try body(transaction)
            try transaction.commit()
            return result
        } catch {
            transaction.cancel()
            throw error
        }
    }

    /// Why the store refuses writes: a failed append, or a failed sync of the log from any path
    /// (group commit, checkpoint, rotation), which poisons the log itself.
    var poisonError: StrataError? {
        state.withLockedValue { $0.poison } ?? files?.log.failure ?? groupCommit?.failure
    }

    /// The newest version whose record is in the commit log (durable or not).
    var loggedVersion: UInt64 { state.withLockedValue { $0.loggedVersion } }

    func acquireWriteGate() { writeGate.acquire() }

    /// Returns once no writer holds the write gate or waits for it (each has committed or
    /// cancelled), or after `timeout`: a group-commit leader's gathering (see ``GroupCommit``).
    /// A writer already waiting for the gate is counted: writers released by one sync begin
    /// their next transactions one after another.
    ///
    /// - Returns: false when `timeout` passed first.
    func awaitWritersInTransaction(for timeout: Duration) -> Bool {
        writeGate.waitUntilIdle(timeout: timeout)
    }

    /// How many threads wait for the write gate.
    var writeGateWaitingCount: Int { writeGate.waitingCount }

    /// Releases the write gate (commit or cancel) to the longest waiter.
    func endWrite() { writeGate.release() }
}
