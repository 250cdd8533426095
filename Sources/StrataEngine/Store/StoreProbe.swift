/// The counters and commit hook the benchmark harness reads from the store behind a Realm file.
///
/// The harness is a package of its own (so that Strata's users never build GRDB), so it cannot
/// use the engine's `package` API; this is the whole of what it needs, public only as the
/// `Benchmarks` SPI (`@_spi(Benchmarks) import StrataEngine`) and not part of Strata's API.
///
/// ```swift
/// let probe = try StoreProbe(path: realmFile, durability: .full)   // the Realm's own store
/// let id = probe.addPublishObserver { version in stamp(version) }
/// print(probe.commits, probe.groupSyncs)
/// try probe.checkpoint()
/// probe.removePublishObserver(id)
/// ```
@_spi(Benchmarks) public final class StoreProbe: Sendable {
    private let store: Store

    /// Opens (or joins, if a Realm has it open in this process) the file store at `path`.
    ///
    /// - Throws: `StrataError` as opening the store does.
    public init(path: String, durability: Durability) throws {
        store = try Store.open(StoreConfiguration(location: .file(path: path), durability: durability))
    }

    /// Commits written since the store opened.
    public var commits: UInt64 { store.statistics.commits }

    /// Log syncs group commit ran since the store opened (fewer than ``commits`` when concurrent
    /// commits shared one).
    public var groupSyncs: UInt64 { store.statistics.groupSyncs }

    /// Checkpoints completed since the store opened (background ones included).
    public var checkpoints: UInt64 { store.statistics.checkpoints }

    /// The bytes of the log records commits appended since the store opened: what the commits
    /// wrote, as opposed to what checkpoints wrote to the page file.
    public var logBytesAppended: UInt64 { store.statistics.logBytesAppended }

    /// The log records the store's open replayed (0 after a release checkpoint or a checkpoint
    /// of the replay: the scale series measures restarts with it).
    public var replayedRecords: Int { store.replayedLog.records }

    /// The bytes of the log records the store's open replayed, headers included.
    public var replayedLogBytes: UInt64 { store.replayedLog.bytes }

    /// The bytes of every log segment since the last checkpoint: what the next open would replay
    /// if the process stopped now without releasing the store.
    public var logBytesSinceCheckpoint: UInt64 { store.files?.log.totalSize ?? 0 }

    /// Writes a checkpoint of the newest version now and trims the log it covers (the scale
    /// series measures what a checkpoint writes, and opens stores after a clean close).
    ///
    /// - Throws: `StrataError` when a file cannot be written.
    public func checkpoint() throws {
        try store.checkpoint()
    }

    /// Calls `body` with each new version as it is published, on the committing thread, before
    /// notifiers see it.
    ///
    /// - Returns: the id to pass to ``removePublishObserver(_:)``.
    public func addPublishObserver(_ body: @escaping @Sendable (UInt64) -> Void) -> Int {
        store.addPublishObserver(body)
    }

    /// Stops calling the observer registered under `id`.
    public func removePublishObserver(_ id: Int) {
        store.removePublishObserver(id)
    }
}
