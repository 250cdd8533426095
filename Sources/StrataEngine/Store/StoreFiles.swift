import StrataStorage
import StrataSupport

/// The files of a file-backed store: the lock file (held while open), the commit log, and the
/// checkpoint path.
struct StoreFiles: Sendable {
    let path: String
    let lockFile: POSIXFile
    let log: CommitLog

    /// Locks the store's files and rebuilds the newest snapshot: the checkpoint, then every
    /// log record after it.
    static func recover(path: String, readOnly: Bool) throws -> (files: StoreFiles, snapshot: Snapshot) {
        if try readOnly && !FileSystem.exists(path) && CommitLog.segmentPaths(storePath: path).isEmpty {
            throw StrataError(.fileNotFound, "the store does not exist and was opened read-only", path: path)
        }
        let lockFile = try POSIXFile(path: path + ".lock", mode: .readWriteCreate)
        guard try lockFile.tryLockExclusive() else {
            throw StrataError(.alreadyOpenInAnotherProcess,
                              "the store is open in another process; close it there first", path: path)
        }
        var snapshot = Snapshot.empty
        if let checkpoint = try CheckpointFile.read(path: path) {
            snapshot = try Snapshot.decode(checkpoint.payload, path: path, offset: UInt64(CheckpointFile.headerSize))
            guard snapshot.version == checkpoint.version else {
                throw StrataError(.corruptFile, "checkpoint header says version \(checkpoint.version), its payload "
                                  + "\(snapshot.version)", path: path, offset: 16)
            }
        }
        let (log, recovery) = try CommitLog.open(storePath: path, checkpointVersion: snapshot.version)
        for record in recovery.records {
            try replay(record, into: &snapshot)
        }
        return (StoreFiles(path: path, lockFile: lockFile, log: log), snapshot)
    }

    private static func replay(_ record: CommitLog.RecoveredRecord, into snapshot: inout Snapshot) throws {
        let instructions = try record.payload.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: record.path, originOffset: record.offset + UInt64(LogRecord.headerSize))
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
