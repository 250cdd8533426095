import StrataStorage
import StrataSupport

/// The files of a file-backed store: the lock file and the checkpoint (both locked while the
/// store is open), and the commit log.
///
/// Single writer: the store holds an exclusive POSIX lock on `<path>.lock` and on the
/// checkpoint file itself. Deleting the lock file does not let a second process in, because the
/// checkpoint stays locked: each new checkpoint is locked through its `.tmp` descriptor before
/// the rename that puts it at `<path>`, and the old one is released only after. A store opened
/// read-write always has a checkpoint (the first open writes one), so there is always one to lock.
struct StoreFiles: Sendable {
    let path: String
    let lockFile: POSIXFile
    let log: CommitLog
    /// The open, locked checkpoint files: the one at `path` and, after a checkpoint whose rename
    /// or directory sync failed, the one that may still be there (empty only for a read-only
    /// store that has no checkpoint). Closing any descriptor of a file drops this process's lock
    /// on it, so nothing else in the process may open the checkpoint while the store is open.
    private let checkpointFiles: LockedValueBox<[POSIXFile]>

    /// Locks the store's files and rebuilds the newest snapshot: the checkpoint, then every
    /// log record after it (see ``CommitLog/open(storePath:anchor:)`` for the recovery rules).
    ///
    /// A read-write open also removes a `<path>.tmp` left by an interrupted checkpoint, and
    /// writes a first checkpoint when there is none.
    static func recover(path: String, readOnly: Bool) throws -> (files: StoreFiles, snapshot: Snapshot) {
        if try readOnly && !FileSystem.exists(path) && CommitLog.segmentPaths(storePath: path).isEmpty {
            throw StrataError(.fileNotFound, "the store does not exist and was opened read-only", path: path)
        }
        let lockFile = try POSIXFile(path: path + ".lock", mode: .readWriteCreate)
        guard try lockFile.tryLockExclusive() else { throw alreadyOpen(path) }
        let checkpointFile = try lockCheckpoint(path: path, readOnly: readOnly)
        if !readOnly { try FileSystem.remove(CheckpointFile.temporaryPath(for: path)) }
        if try FormatOneStore.detect(storePath: path, checkpoint: checkpointFile) {
            guard !readOnly else {
                throw StrataError(.invalidFileFormat, "the store was written by an earlier Strata (format 1); open it "
                                      + "read-write once to upgrade it", path: path)
            }
            return try upgrade(path: path, lockFile: lockFile, checkpointFile: checkpointFile)
        }

        var snapshot = Snapshot.empty
        var anchor: LogAnchor?
        if let checkpointFile {
            let checkpoint = try CheckpointFile.read(checkpointFile)
            snapshot = try loadCheckpoint(checkpoint.payload, version: checkpoint.version, path: path,
                                          payloadOffset: CheckpointFile.headerSize)
            anchor = LogAnchor(storeID: checkpoint.header.storeID, version: checkpoint.version,
                               firstSegment: checkpoint.header.firstSegment, path: path)
        }
        let (log, recovery) = try CommitLog.open(storePath: path, anchor: anchor)
        for record in recovery.records {
            try replay(record, into: &snapshot)
        }
        let files = StoreFiles(path: path, lockFile: lockFile, log: log,
                               checkpointFiles: LockedValueBox(checkpointFile.map { [$0] } ?? []))
        if checkpointFile == nil && !readOnly {
            if !recovery.records.isEmpty { try log.rotate() }
            try files.writeCheckpoint(version: snapshot.version, payload: snapshot.encoded())
            try log.removeSealedSegments()
        }
        return (files, snapshot)
    }

    /// Upgrades a format 1 store (see ``FormatOneStore``): reads it by format 1's rules, starts a
    /// format 2 log after its last segment, writes a format 2 checkpoint of everything read (the
    /// moment the upgrade takes effect: a crash before it leaves the format 1 store, which the
    /// next open upgrades again), then deletes the format 1 segments.
    private static func upgrade(
        path: String, lockFile: POSIXFile, checkpointFile: POSIXFile?
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
        let files = StoreFiles(path: path, lockFile: lockFile, log: log,
                               checkpointFiles: LockedValueBox(checkpointFile.map { [$0] } ?? []))
        try files.writeCheckpoint(version: snapshot.version, payload: snapshot.encoded())
        for segment in old.segmentPaths { try FileSystem.remove(segment) }
        try FileSystem.syncDirectory(containing: path)
        return (files, snapshot)
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

    /// Durably replaces the checkpoint with `payload` at `version`, naming the current log
    /// segment as the one that continues it, and moves the lock to the new file.
    ///
    /// Call after ``CommitLog/rotate()``, with no other rotation until it returns (the engine's
    /// checkpoint runs one at a time), so the current segment's base version is `version`.
    func writeCheckpoint(version: UInt64, payload: [UInt8]) throws {
        let header = CheckpointFile.Header(version: version, storeID: log.storeID, firstSegment: log.currentSequence)
        try CheckpointFile.write(path: path, header: header, payload: payload) { file in
            checkpointFiles.withLockedValue { $0.append(file) }
        }
        // The old checkpoint's descriptors close here, after the rename: their locks were on the
        // replaced inode, and the new inode was locked before it appeared at `path`.
        checkpointFiles.withLockedValue { $0.removeFirst($0.count - 1) }
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
            let instructions = try reader.readInstructions()
            guard reader.isAtEnd else { throw reader.corrupt("trailing bytes after the instructions") }
            return instructions
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
