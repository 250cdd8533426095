import StrataSupport

/// The write-ahead commit log: segment files of checksummed records, appended in version order.
///
/// Appends are serialized by the caller (the engine's write lock). ``sync()`` may run on another
/// thread concurrently with appends: it syncs whatever the kernel has of the current segment,
/// which includes every append that returned before the call.
///
/// The first failed sync (from any caller) poisons the log: every later ``sync()``,
/// ``append(_:)`` and ``rotate()`` throws ``StrataError/Code/poisoned`` (see ``failure``), so no
/// path can sync past a lost write-back error and acknowledge data that is gone.
public final class CommitLog: Sendable {
    /// The store path the segments are named after.
    public let storePath: String
    private let current: LockedValueBox<Current>
    private let poison = SyncPoison()

    private struct Current {
        var file: POSIXFile
        var appendOffset: UInt64
        var segments: [LogSegment]
    }

    private init(storePath: String, segments: [LogSegment], file: POSIXFile, appendOffset: UInt64) {
        self.storePath = storePath
        current = LockedValueBox(Current(file: file, appendOffset: appendOffset, segments: segments))
    }

    /// The bytes in the current segment, header included.
    public var currentSegmentSize: UInt64 { current.withLockedValue { $0.appendOffset } }

    /// The number of segment files the log spans.
    public var segmentCount: Int { current.withLockedValue { $0.segments.count } }

    /// Appends one sealed record (see ``LogRecord``). The bytes reach the kernel before this
    /// returns; they are durable only after ``sync()``. Appends must not run concurrently with
    /// each other or with ``rotate()`` (the engine's write lock orders them).
    public func append(_ record: [UInt8]) throws {
        try poison.check()
        let (file, offset) = current.withLockedValue { ($0.file, $0.appendOffset) }
        try file.write(record, at: offset)
        current.withLockedValue { $0.appendOffset = offset + UInt64(record.count) }
    }

    /// The ``StrataError/Code/poisoned`` error every later sync and append throws, once a sync
    /// (or a rotation) has failed.
    public var failure: StrataError? { poison.error }

    /// Makes every record appended so far durable (`fdatasync` of the current segment). May run
    /// concurrently with appends; syncs run one at a time.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when the sync fails (the log is poisoned from
    ///   then on), ``StrataError/Code/poisoned`` after an earlier failure.
    public func sync() throws {
        try poison.sync { try current.withLockedValue { $0.file }.sync() }
    }

    /// Starts a new segment; later appends go there. Call after ``sync()``, with appends paused.
    ///
    /// A failure poisons the log: a segment file may exist that later appends would not reach.
    public func rotate() throws {
        try poison.check()
        let sequence = (current.withLockedValue { $0.segments.last?.sequence } ?? 0) + 1
        let segment: LogSegment
        let file: POSIXFile
        do {
            (segment, file) = try LogSegment.create(storePath: storePath, sequence: sequence)
        } catch {
            throw poison.record(error)
        }
        current.withLockedValue {
            $0.file = file
            $0.segments.append(segment)
            $0.appendOffset = UInt64(LogSegment.headerSize)
        }
    }

    /// Deletes every segment except the current one. Call once a checkpoint covers them.
    public func removeSealedSegments() throws {
        let sealed = current.withLockedValue { $0.segments.dropLast() }
        for segment in sealed { try FileSystem.remove(segment.path) }
        current.withLockedValue { $0.segments.removeFirst(sealed.count) }
        if !sealed.isEmpty { try FileSystem.syncDirectory(containing: storePath) }
    }

    /// Deletes every log segment of `storePath`.
    public static func removeAll(storePath: String) throws {
        for path in try segmentPaths(storePath: storePath) { try FileSystem.remove(path) }
    }

    /// The paths of the log segments of `storePath`, in sequence order.
    public static func segmentPaths(storePath: String) throws -> [String] {
        let prefix = FileSystem.fileName(of: storePath) + ".log."
        return try FileSystem.siblings(of: storePath, withPrefix: prefix).compactMap { name in
            let suffix = name.dropFirst(prefix.count)
            guard suffix.count == 16, suffix.allSatisfy(\.isHexDigit) else { return nil }
            return storePath + ".log." + suffix
        }
    }

    // MARK: - Recovery

    /// A record read back during recovery.
    public struct RecoveredRecord: Sendable {
        /// The commit version.
        public var version: UInt64
        /// The payload bytes.
        public var payload: [UInt8]
        /// The segment file the record is in.
        public var path: String
        /// The offset of the record's header in that file.
        public var offset: UInt64
    }

    /// What recovery found.
    public struct Recovery: Sendable {
        /// Records newer than the checkpoint, in version order.
        public var records: [RecoveredRecord]
        /// Bytes cut from the end of the last segment because its last record was torn.
        public var truncatedBytes: UInt64
    }

    /// Opens the log of `storePath` for appending, first reading back every record newer than
    /// `checkpointVersion`.
    ///
    /// A torn tail (a damaged last record with nothing valid after it) is cut off; any other
    /// damage throws ``StrataError/Code/corruptFile`` naming the segment and offset.
    public static func open(
        storePath: String, checkpointVersion: UInt64
    ) throws -> (CommitLog, Recovery) {
        let paths = try segmentPaths(storePath: storePath)
        var records: [RecoveredRecord] = []
        var segments: [LogSegment] = []
        var truncated: UInt64 = 0
        var lastVersion = checkpointVersion
        var previousRecord: UInt64?
        var lastFile: POSIXFile?
        var lastEnd: UInt64 = 0

        for (index, path) in paths.enumerated() {
            let isLast = index == paths.count - 1
            let file = try POSIXFile(path: path, mode: .readWriteCreate)
            let bytes = try file.readAll()
            if isLast && bytes.count < LogSegment.headerSize {
                // Creating this segment was interrupted before its header was synced: it never
                // held a record, so removing it loses nothing.
                try FileSystem.remove(path)
                break
            }
            let scan = try bytes.withUnsafeBytes { (raw) throws in
                try scanSegment(raw, path: path, isLast: isLast, after: &lastVersion, previous: &previousRecord,
                                into: &records)
            }
            segments.append(LogSegment(sequence: scan.sequence, path: path))
            if scan.end < UInt64(bytes.count) {
                truncated = UInt64(bytes.count) - scan.end
                try file.truncate(to: scan.end)
                try file.sync()
            }
            lastFile = file
            lastEnd = scan.end
        }
        guard let file = lastFile, !segments.isEmpty else {
            let (segment, file) = try LogSegment.create(storePath: storePath, sequence: 1)
            let log = CommitLog(storePath: storePath, segments: [segment], file: file,
                                appendOffset: UInt64(LogSegment.headerSize))
            return (log, Recovery(records: records, truncatedBytes: 0))
        }
        let log = CommitLog(storePath: storePath, segments: segments, file: file, appendOffset: lastEnd)
        return (log, Recovery(records: records, truncatedBytes: truncated))
    }

    private static func scanSegment(
        _ bytes: UnsafeRawBufferPointer, path: String, isLast: Bool,
        after lastVersion: inout UInt64, previous: inout UInt64?, into records: inout [RecoveredRecord]
    ) throws -> (sequence: UInt64, end: UInt64) {
        let sequence = try LogSegment.validateHeader(bytes, path: path)
        var offset = LogSegment.headerSize
        while offset < bytes.count {
            guard let header = LogRecord.header(in: bytes, at: offset),
                  header.payloadLength <= bytes.count - offset - LogRecord.headerSize
            else {
                return try damaged(bytes, at: offset, path: path, isLast: isLast, sequence: sequence)
            }
            let start = offset + LogRecord.headerSize
            let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<start + header.payloadLength])
            guard CRC32C.checksum(payload) == header.payloadCRC else {
                return try damaged(bytes, at: offset, path: path, isLast: isLast, sequence: sequence)
            }
            // Every record follows the one before it, also across segments and below the checkpoint.
            if let previous, header.version != previous + 1 {
                throw StrataError(.corruptFile,
                                  "commit log record \(header.version) follows record \(previous)",
                                  path: path, offset: UInt64(offset))
            }
            previous = header.version
            if header.version > lastVersion {
                guard header.version == lastVersion + 1 else {
                    throw StrataError(.corruptFile,
                                      "commit log skips from version \(lastVersion) to \(header.version)",
                                      path: path, offset: UInt64(offset))
                }
                records.append(RecoveredRecord(version: header.version, payload: Array(payload), path: path,
                                               offset: UInt64(offset)))
                lastVersion = header.version
            }
            offset = start + header.payloadLength
        }
        return (sequence, UInt64(offset))
    }

    /// Decides whether a bad record at `offset` is a torn tail (cut it) or damage (throw).
    private static func damaged(
        _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String, isLast: Bool, sequence: UInt64
    ) throws -> (sequence: UInt64, end: UInt64) {
        let corruption = StrataError(.corruptFile, "commit log record is damaged and later records follow it",
                                     path: path, offset: UInt64(offset))
        guard isLast else { throw corruption }
        var probe = offset + 1
        while probe + LogRecord.headerSize <= bytes.count {
            if let header = LogRecord.header(in: bytes, at: probe),
               header.payloadLength <= bytes.count - probe - LogRecord.headerSize {
                throw corruption
            }
            probe += 1
        }
        return (sequence, UInt64(offset))
    }
}
