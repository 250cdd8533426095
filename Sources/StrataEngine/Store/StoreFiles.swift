import StrataStorage
import StrataSupport

/// The files of a file-backed store: the lock file and the page file (both locked while the
/// store is open), and the commit log.
///
/// Single writer: the store holds an exclusive POSIX lock on `<path>.lock` and on the page file
/// itself. Deleting the lock file does not let a second process in, because the page file stays
/// locked. A store opened read-write always has a page file (the first open writes one), so
/// there is always one to lock; the page file is written in place from then on, except when an
/// older format's checkpoint is converted (see ``StorePages/install(path:storeID:snapshot:firstLogSegment:cache:)``).
struct StoreFiles: Sendable {
    let path: String
    let lockFile: POSIXFile
    let log: CommitLog
    /// Bounds the memory of the page file's tree leaves (nil: unbounded); kept across compactions.
    let cache: NodeCache?
    /// The page file (nil only for a read-only store that has none); a compaction replaces it.
    /// Closing any descriptor of a file drops this process's lock on it, so nothing else in the
    /// process may open the page file while the store is open.
    var pages: StorePages? { currentPages.withLockedValue { $0 } }
    private let currentPages: LockedValueBox<StorePages?>
    /// The new page file a failed compaction left at `path` (see ``compact(_:)``), kept open for
    /// its lock until a compaction succeeds or the store closes.
    private let placedFile = LockedValueBox<POSIXFile?>(nil)

    init(path: String, lockFile: POSIXFile, log: CommitLog, cache: NodeCache?, pages: StorePages?) {
        self.path = path
        self.lockFile = lockFile
        self.log = log
        self.cache = cache
        currentPages = LockedValueBox(pages)
    }

    /// Locks the store's files and rebuilds the newest snapshot: the page file's checkpoint, then
    /// every log record after it (see ``CommitLog/open(storePath:anchor:)`` for the recovery rules).
    ///
    /// A read-write open also removes what an interrupted conversion left (`<path>.tmp`), writes
    /// a first page file when there is none, and converts a store of an earlier format (a format 1
    /// store, or a format 2 checkpoint file) to a page file; a read-only open of such a store
    /// throws ``StrataError/Code/invalidFileFormat``. The page file's leaves are admitted to `cache`.
    static func recover(
        path: String, readOnly: Bool, cache: NodeCache?
    ) throws -> (files: StoreFiles, snapshot: Snapshot, replayed: ReplayedLog) {
        if try readOnly && !FileSystem.exists(path) && CommitLog.segmentPaths(storePath: path).isEmpty {
            throw StrataError(.fileNotFound, "the store does not exist and was opened read-only", path: path)
        }
        let lockFile = try POSIXFile(path: path + ".lock", mode: .readWriteCreate)
        guard try lockFile.tryLockExclusive() else { throw alreadyOpen(path) }
        let existing = try lockCheckpoint(path: path, readOnly: readOnly)
        if !readOnly {
            try StorePages.removeLeftovers(of: path)
            try FileSystem.remove(CheckpointFile.temporaryPath(for: path))
        }
        if try FormatOneStore.detect(storePath: path, checkpoint: existing) {
            try refuseUpgrade(path: path, readOnly: readOnly, format: "format 1")
            let upgraded = try upgrade(path: path, lockFile: lockFile, checkpointFile: existing, cache: cache)
            return (upgraded.files, upgraded.snapshot, ReplayedLog())
        }
        if let existing, try CheckpointFile.isCheckpoint(existing) {
            try refuseUpgrade(path: path, readOnly: readOnly, format: "format 2, a checkpoint file")
            let converted = try convert(path: path, lockFile: lockFile, checkpointFile: existing, cache: cache)
            return (converted.files, converted.snapshot, ReplayedLog())
        }

        var snapshot = Snapshot.empty
        var anchor: LogAnchor?
        var pages: StorePages?
        if let existing {
            let opened = try StorePages.open(file: existing, readOnly: readOnly, cache: cache)
            pages = opened.pages
            snapshot = opened.snapshot
            let header = opened.pages.file.header
            anchor = LogAnchor(storeID: header.storeID, version: header.checkpoint.logVersion,
                               firstSegment: header.checkpoint.firstLogSegment, path: path)
        }
        let (log, recovery) = try CommitLog.open(storePath: path, anchor: anchor)
        var replayed = ReplayedLog()
        for record in recovery.records {
            try replay(record, into: &snapshot)
            replayed.note(record)
        }
        if pages == nil && !readOnly {
            if !recovery.records.isEmpty { try log.rotate() }
            pages = try StorePages.install(path: path, storeID: log.storeID, snapshot: snapshot,
                                           firstLogSegment: log.currentSequence, cache: cache)
            try log.removeSealedSegments()
            replayed = ReplayedLog()
        }
        return (StoreFiles(path: path, lockFile: lockFile, log: log, cache: cache, pages: pages), snapshot, replayed)
    }

    private static func refuseUpgrade(path: String, readOnly: Bool, format: String) throws {
        guard readOnly else { return }
        throw StrataError(.invalidFileFormat, "the store was written by an earlier Strata (\(format)); open it "
                              + "read-write once to upgrade it", path: path)
    }

    /// Upgrades a format 1 store (see ``FormatOneStore``): reads it by format 1's rules, starts a
    /// format 2 log after its last segment, writes a page file of everything read (the moment the
    /// upgrade takes effect: a crash before it leaves the format 1 store, which the next open
    /// upgrades again), then deletes the format 1 segments.
    private static func upgrade(
        path: String, lockFile: POSIXFile, checkpointFile: POSIXFile?, cache: NodeCache?
    ) throws -> (files: StoreFiles, snapshot: Snapshot) {
        let old = try FormatOneStore.read(storePath: path, checkpoint: checkpointFile)
        var snapshot = Snapshot.empty
        if let checkpoint = old.checkpoint {
            snapshot = try loadCheckpoint(checkpoint.payload, version: checkpoint.version, path: path, payloadOffset: 40)
        }
        for record in old.records {
            try replay(record, into: &snapshot, payloadOffset: 24)
        }
        let log = try CommitLog.start(storePath: path, sequence: old.lastSequence + 1, baseVersion: snapshot.version)
        let pages = try StorePages.install(path: path, storeID: log.storeID, snapshot: snapshot,
                                           firstLogSegment: log.currentSequence, cache: cache)
        withExtendedLifetime(checkpointFile) {}
        for segment in old.segmentPaths { try FileSystem.remove(segment) }
        try FileSystem.syncDirectory(containing: path)
        return (StoreFiles(path: path, lockFile: lockFile, log: log, cache: cache, pages: pages), snapshot)
    }

    /// Converts a format 2 store (a checkpoint file, see ``CheckpointFile``, and its log) to a page
    /// file: reads the checkpoint and the log after it, rotates the log, and writes a page file of
    /// the newest version in place of the checkpoint (the moment the conversion takes effect: a
    /// crash before it leaves the format 2 store, which the next open converts again).
    private static func convert(
        path: String, lockFile: POSIXFile, checkpointFile: POSIXFile, cache: NodeCache?
    ) throws -> (files: StoreFiles, snapshot: Snapshot) {
        let checkpoint = try CheckpointFile.read(checkpointFile)
        var snapshot = try loadCheckpoint(checkpoint.payload, version: checkpoint.version, path: path,
                                          payloadOffset: CheckpointFile.headerSize)
        let anchor = LogAnchor(storeID: checkpoint.header.storeID, version: checkpoint.version,
                               firstSegment: checkpoint.header.firstSegment, path: path)
        let (log, recovery) = try CommitLog.open(storePath: path, anchor: anchor)
        for record in recovery.records {
            try replay(record, into: &snapshot)
        }
        try log.rotate()
        let pages = try StorePages.install(path: path, storeID: log.storeID, snapshot: snapshot,
                                           firstLogSegment: log.currentSequence, cache: cache)
        withExtendedLifetime(checkpointFile) {}
        try log.removeSealedSegments()
        return (StoreFiles(path: path, lockFile: lockFile, log: log, cache: cache, pages: pages), snapshot)
    }

    private static func loadCheckpoint(_ payload: [UInt8], version: UInt64, path: String,
                                       payloadOffset: Int) throws -> Snapshot {
        let snapshot = try Snapshot.decode(payload, path: path, offset: UInt64(payloadOffset))
        guard snapshot.version == version else {
            throw StrataError(.corruptFile, "checkpoint header says version \(version), its payload "
                              + "\(snapshot.version)", path: path, offset: 16)
        }
        return snapshot
    }

    /// Writes an incremental checkpoint of `snapshot` into the page file, naming the current log
    /// segment as the one that continues it.
    ///
    /// Call after ``CommitLog/rotate()``, with no other rotation until it returns (the engine's
    /// checkpoint runs one at a time), so the current segment's base version is the snapshot's.
    func writeCheckpoint(_ snapshot: Snapshot) throws {
        guard let pages else {
            throw StrataError(.readOnly, "the store was opened read-only", path: path)
        }
        try pages.checkpoint(snapshot, firstLogSegment: log.currentSequence)
    }

    /// Replaces the page file with a compact one holding `snapshot` (every page in use, none
    /// free), naming the current log segment as the one that continues it.
    ///
    /// Call as ``writeCheckpoint(_:)``. The new file is written whole beside the old one and
    /// renamed over it (see ``StorePages/install(path:storeID:snapshot:firstLogSegment:cache:afterRename:)``):
    /// a crash leaves the old file with its log or the new one.
    ///
    /// When something fails after the rename (the directory's sync), the store goes on with the
    /// old file, whose checkpoints are then refused (``PageFile/poison(with:)``) until the store
    /// is reopened or a compaction succeeds: the file at `path` is the new one, or the old one
    /// if a power cut undoes the rename, and a checkpoint of the old file would trim log segments
    /// the new one needs. The new file stays open, so it stays locked.
    func compact(_ snapshot: Snapshot) throws {
        guard let old = pages else {
            throw StrataError(.readOnly, "the store was opened read-only", path: path)
        }
        let new = try StorePages.install(
            path: path, storeID: old.file.header.storeID, snapshot: snapshot, firstLogSegment: log.currentSequence,
            cache: cache,
            afterRename: { failure, placed in
                old.file.poison(with: failure)
                placedFile.withLockedValue { $0 = placed }
            })
        // The old file's descriptor closes when the last reference goes: its lock was on the
        // replaced inode, and the new inode is locked already.
        currentPages.withLockedValue { $0 = new }
        placedFile.withLockedValue { $0 = nil }
    }

    /// Opens and locks the checkpoint at `path`, or returns nil when there is none: exclusively,
    /// or for a read-only store shared (on a read-only descriptor, so a read-only store needs no
    /// write permission on it; a writer's exclusive lock still excludes it, and it excludes one).
    ///
    /// Retries when the file at `path` was replaced between the open and the lock (the locked
    /// inode must be the one at `path`).
    private static func lockCheckpoint(path: String, readOnly: Bool) throws -> POSIXFile? {
        while true {
            let file: POSIXFile
            do {
                file = try POSIXFile(path: path, mode: readOnly ? .readOnly : .readWrite)
            } catch let error as StrataError where error.code == .fileNotFound {
                return nil
            }
            guard try readOnly ? file.tryLockShared() : file.tryLockExclusive() else { throw alreadyOpen(path) }
            if try FileSystem.identity(of: path) == file.identity() { return file }
        }
    }

    private static func alreadyOpen(_ path: String) -> StrataError {
        StrataError(.alreadyOpenInAnotherProcess, "the store is open in another process; close it there first",
                    path: path)
    }

    private static func replay(
        _ record: CommitLog.RecoveredRecord, into snapshot: inout Snapshot, payloadOffset: Int = LogRecord.headerSize
    ) throws {
        let instructions = try record.payload.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: record.path, originOffset: record.offset + UInt64(payloadOffset))
            return try reader.readPayloadInstructions()
        }
        do {
            for instruction in instructions { try snapshot.apply(instruction) }
        } catch let error as StrataError {
            throw StrataError(.corruptFile, "replaying version \(record.version) failed: \(error.message)",
                              path: record.path, offset: record.offset)
        }
        snapshot.version = record.version
    }
}
