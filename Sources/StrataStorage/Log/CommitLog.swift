import StrataSupport

/// The write-ahead commit log: segment files of chained, checksummed records, appended in
/// version order.
///
/// Appends are serialized by the caller (the engine's write lock). ``sync()`` may run on another
/// thread concurrently with appends: it syncs whatever the kernel has of the current segment,
/// which includes every append that returned before the call.
///
/// The first failed sync (or failed write of a durable marker, or failed rotation), from any
/// caller, poisons the log: every later ``sync()``, ``append(_:)`` and ``rotate()`` throws
/// ``StrataError/Code/poisoned`` (see ``failure``), because Linux reports a write-back error only
/// once and a later `fdatasync` that succeeds proves nothing about the pages that were lost.
/// Syncs run one at a time, so a sync that reports success never overlaps one that fails.
///
/// On-disk format and recovery rules: see ``LogSegment``, ``LogRecord`` and
/// ``open(storePath:anchor:)``.
package final class CommitLog: Sendable {
    /// The store path the segments are named after.
    package let storePath: String
    /// The store identity every segment of this log carries (see ``LogAnchor/storeID``).
    package let storeID: UInt64
    private let current: LockedValueBox<Current>
    private let poison = SyncPoison()

    struct Current {
        var file: POSIXFile
        var segments: [LogSegment]
        /// Where the next record goes in `file`.
        var appendOffset: UInt64
        /// The version of the last record appended (or the segment's base version).
        var lastVersion: UInt64
        /// The chain value of the next record: the last record's header CRC, or the salt.
        var chain: UInt32
        /// The length of `file` the last successful sync covered.
        var syncedLength: UInt64
        /// The durable length the marker in `file` says.
        var markedLength: UInt64
        /// The length of `file`, at least `appendOffset`: past the last record, space reserved
        /// for later appends (zeros; see ``preallocate(inStepsOf:)``).
        var allocatedLength: UInt64
        /// How far ahead of the appends space is reserved, in bytes (0: none).
        var preallocationStep: UInt64 = 0
        /// The bytes of the records appended since the log was opened, over every segment.
        var appendedBytes: UInt64 = 0
        /// The bytes of the segments before the current one (still on disk: no checkpoint
        /// covers them yet, or their removal is pending).
        var sealedBytes: UInt64 = 0
    }

    init(storePath: String, storeID: UInt64, current: Current) {
        self.storePath = storePath
        self.storeID = storeID
        self.current = LockedValueBox(current)
    }

    /// The bytes in the current segment, header included.
    package var currentSegmentSize: UInt64 { current.withLockedValue { $0.appendOffset } }

    /// The bytes of the records appended since the log was opened, over every segment (what the
    /// commits wrote to the log, as opposed to what checkpoints wrote to the page file).
    package var appendedBytes: UInt64 { current.withLockedValue { $0.appendedBytes } }

    /// Reserves space in the current segment ahead of the appends, `step` bytes at a time (0: no
    /// longer), and in every segment after it. An `fdatasync` that must also make a new file size
    /// and newly allocated blocks durable costs a journal commit on top of the data (on ext4 about
    /// 190 µs per small append instead of 130); with the space reserved, a commit's sync writes
    /// its data and the durable marker only. A store that syncs every commit turns it on.
    ///
    /// The reserved space reads as zeros, which recovery takes as the end of the records, not a
    /// torn tail; a rotation cuts it off the segment it seals, since a sealed segment must end
    /// with its last record.
    package func preallocate(inStepsOf step: UInt64) {
        current.withLockedValue { $0.preallocationStep = step }
    }

    /// The bytes of every segment the log spans, headers included: what recovery would read
    /// at the next open, and what a checkpoint would trim. A checkpoint due by size is due by
    /// this, not by ``currentSegmentSize``: a checkpoint that rotated the log and then stopped
    /// (a crash, a failed page write) leaves the segments it meant to trim, and the small
    /// current segment after them says nothing about them.
    package var totalSize: UInt64 { current.withLockedValue { $0.sealedBytes + $0.appendOffset } }

    /// Whether the current segment holds no record (a checkpoint of the newest version can
    /// name it as the first segment after it, without a rotation).
    package var currentSegmentIsEmpty: Bool {
        current.withLockedValue { $0.appendOffset == UInt64(LogSegment.headerSize) }
    }

    /// The number of segment files the log spans.
    package var segmentCount: Int { current.withLockedValue { $0.segments.count } }

    /// The sequence number of the segment appends go to.
    package var currentSequence: UInt64 { current.withLockedValue { $0.segments.last!.sequence } }

    /// The version of the last record appended (or recovered).
    package var lastVersion: UInt64 { current.withLockedValue { $0.lastVersion } }

    /// Appends one record sealed with ``LogRecord/seal(_:version:)``, chaining it to the record
    /// before it. The bytes reach the kernel before this returns; they are durable only after
    /// ``sync()``. Appends must not run concurrently with each other or with ``rotate()`` (the
    /// engine's write lock orders them).
    ///
    /// The record is taken over (`consuming`): its header is chained in place, so a caller that
    /// hands over its only reference (``ByteWriter/takeBytes()``) has a large commit's record
    /// in memory once, not twice.
    package func append(_ record: consuming [UInt8]) throws {
        try poison.check()
        let (file, offset, chain) = current.withLockedValue { ($0.file, $0.appendOffset, $0.chain) }
        reserveSpace(through: offset + UInt64(record.count))
        let sealed = record.withUnsafeBytes { raw -> LogRecord.Header in
            guard let sealed = LogRecord.header(in: raw, at: 0),
                  sealed.payloadLength == raw.count - LogRecord.headerSize
            else { preconditionFailure("CommitLog.append takes a record built with LogRecord.seal") }
            return sealed
        }
        let header = LogRecord.encodeHeader(payloadLength: sealed.payloadLength, version: sealed.version,
                                            payloadCRC: sealed.payloadCRC, chain: chain)
        // One write of the whole record (one system call per commit), its header chained.
        let length = UInt64(record.count)
        record.withUnsafeMutableBytes { raw in
            header.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        try file.write(record, at: offset)
        let nextChain = header.withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
        }
        current.withLockedValue {
            $0.appendOffset = offset + length
            $0.appendedBytes += length
            $0.allocatedLength = max($0.allocatedLength, $0.appendOffset)
            $0.lastVersion = sealed.version
            $0.chain = nextChain
        }
    }

    /// Appends one record whose `payloadLength`-byte payload `writePayload` produces in pieces,
    /// handing each to the sink it is given, in order: a large commit's record is never whole in
    /// memory. The pieces are written after the header's place and the header last, once the
    /// payload's checksum is known; until then the bytes past the log's end are no record (a crash
    /// leaves a torn tail, which recovery drops, and the next append writes over them).
    ///
    /// - Throws: what `writePayload` throws, a write failure, or ``StrataError/Code/poisoned``;
    ///   nothing is appended then.
    package func append(
        version: UInt64, payloadLength: Int,
        writePayload: (_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        try poison.check()
        let (file, offset, chain) = current.withLockedValue { ($0.file, $0.appendOffset, $0.chain) }
        reserveSpace(through: offset + UInt64(LogRecord.headerSize + payloadLength))
        var position = offset + UInt64(LogRecord.headerSize)
        var checksum: UInt32 = 0
        try writePayload { piece in
            checksum = CRC32C.checksum(piece, seed: checksum)
            try file.write(piece, at: position)
            position += UInt64(piece.count)
        }
        let written = Int(position - offset) - LogRecord.headerSize
        precondition(written == payloadLength, "CommitLog.append: the payload wrote \(written) of \(payloadLength) bytes")
        let header = LogRecord.encodeHeader(payloadLength: payloadLength, version: version, payloadCRC: checksum,
                                            chain: chain)
        try file.write(header, at: offset)
        let nextChain = header.withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
        }
        current.withLockedValue {
            $0.appendedBytes += position - $0.appendOffset
            $0.appendOffset = position
            $0.allocatedLength = max($0.allocatedLength, position)
            $0.lastVersion = version
            $0.chain = nextChain
        }
    }

    /// The ``StrataError/Code/poisoned`` error every later sync, append and rotation throws, once
    /// a sync (or a rotation) has failed.
    package var failure: StrataError? { poison.error }

    /// Makes every record appended so far durable (`fdatasync` of the current segment). May run
    /// concurrently with appends; syncs run one at a time.
    ///
    /// Before syncing, it rewrites the segment's durable marker with the length the previous
    /// successful sync covered (see ``LogSegment``), so the marker costs no extra sync.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when the sync fails (the log is poisoned from
    ///   then on), ``StrataError/Code/poisoned`` after an earlier failure.
    package func sync() throws {
        try poison.sync {
            let (file, target) = try current.withLockedValue { (state) throws -> (POSIXFile, UInt64) in
                if state.syncedLength > state.markedLength {
                    try Self.writeMarker(LogSegment.Marker(durableLength: state.syncedLength, sealed: false),
                                         to: state.file)
                    state.markedLength = state.syncedLength
                }
                return (state.file, state.appendOffset)
            }
            try file.sync()
            current.withLockedValue {
                if $0.file === file { $0.syncedLength = max($0.syncedLength, target) }
            }
        }
    }

    /// Starts a new segment; later appends go there. Call with appends paused.
    ///
    /// Cuts the reserved space off the current segment and syncs it in full (its length with
    /// it), creates the next one (synced, with its directory),
    /// then marks the old one sealed and syncs it again: a sealed segment's successor exists.
    ///
    /// When the new segment's file cannot be opened (no descriptor left, no space for a new
    /// file), nothing was written: the log stays as it was, unpoisoned, appends go on in the
    /// current segment, and a later rotation may succeed. Any later failure (a write or a sync,
    /// after which bytes may be lost) poisons the log; a new segment that could not be written
    /// is removed.
    ///
    /// - Returns: the sequence number of the new segment.
    /// - Throws: ``StrataError/Code/logRotationFailed`` when the new segment's file cannot be
    ///   opened (its `errno` says why); ``StrataError/Code/fileAccess`` when a write or sync fails
    ///   (the log is poisoned from then on); ``StrataError/Code/poisoned`` after an earlier failure.
    @discardableResult
    package func rotate() throws -> UInt64 {
        try poison.sync { try releaseReservedSpace() }
        try sync()
        let (old, sequence, base, end) = current.withLockedValue {
            ($0.file, $0.segments.last!.sequence, $0.lastVersion, $0.appendOffset)
        }
        let fields = LogSegment.Header(salt: UInt32.random(in: .min ... .max), sequence: sequence + 1,
                                       storeID: storeID, baseVersion: base)
        let newFile: POSIXFile
        do {
            newFile = try LogSegment.openNew(storePath: storePath, sequence: fields.sequence)
        } catch let error as StrataError {
            throw StrataError(.logRotationFailed,
                              "cannot create log segment \(fields.sequence) (\(error.message)); nothing was written, "
                                  + "commits go on in segment \(sequence)",
                              path: error.path, errno: error.errno)
        }
        try poison.sync {
            // A failed write or sync removes the new file; it poisons all the same, as every failed
            // sync does (the first failed sync, from any path, stops every later commit).
            let (segment, file) = try LogSegment.initialize(newFile, fields: fields)
            current.withLockedValue {
                $0.sealedBytes += end
                $0.file = file
                $0.segments.append(segment)
                $0.appendOffset = UInt64(LogSegment.headerSize)
                $0.chain = fields.salt
                $0.syncedLength = UInt64(LogSegment.headerSize)
                $0.markedLength = UInt64(LogSegment.headerSize)
                $0.allocatedLength = UInt64(LogSegment.headerSize)
            }
            try Self.writeMarker(LogSegment.Marker(durableLength: end, sealed: true), to: old)
            try old.sync()
        }
        return sequence + 1
    }

    /// Deletes every segment except the current one. Call once a checkpoint covers them.
    package func removeSealedSegments() throws {
        let sealed = current.withLockedValue { $0.segments.dropLast() }
        for segment in sealed { try FileSystem.remove(segment.path) }
        current.withLockedValue {
            $0.segments.removeFirst(sealed.count)
            $0.sealedBytes = 0
        }
        if !sealed.isEmpty { try FileSystem.syncDirectory(containing: storePath) }
    }

    /// Deletes every log segment of `storePath`.
    package static func removeAll(storePath: String) throws {
        for path in try segmentPaths(storePath: storePath) { try FileSystem.remove(path) }
    }

    /// The paths of the log segments of `storePath`, in sequence order.
    package static func segmentPaths(storePath: String) throws -> [String] {
        try segments(storePath: storePath).map(\.path)
    }

    /// The log segments of `storePath`, in sequence order.
    static func segments(storePath: String) throws -> [LogSegment] {
        let prefix = FileSystem.fileName(of: storePath) + ".log."
        return try FileSystem.siblings(of: storePath, withPrefix: prefix).compactMap { name in
            let suffix = name.dropFirst(prefix.count)
            guard suffix.count == 16, suffix.allSatisfy(\.isHexDigit), let sequence = UInt64(suffix, radix: 16) else {
                return nil
            }
            return LogSegment(sequence: sequence, path: storePath + ".log." + suffix)
        }
    }

    // MARK: - Helpers

    /// Before an append that ends at `end`: when that is past the reserved space, reserves up to
    /// the next multiple of the step past it. Appends are serialized, so nothing else writes past
    /// `appendOffset` meanwhile. Failing to reserve changes nothing (the append grows the file).
    private func reserveSpace(through end: UInt64) {
        let (file, allocated, step) = current.withLockedValue { ($0.file, $0.allocatedLength, $0.preallocationStep) }
        guard step > 0, end > allocated else { return }
        let target = (end / step + 1) * step
        if file.allocate(from: allocated, to: target) {
            current.withLockedValue { if $0.file === file { $0.allocatedLength = max($0.allocatedLength, target) } }
        }
    }

    /// Cuts the reserved space off the current segment, so that it ends with its last record
    /// (before a rotation seals it: every record check in a sealed segment is strict).
    private func releaseReservedSpace() throws {
        let (file, end, allocated) = current.withLockedValue { ($0.file, $0.appendOffset, $0.allocatedLength) }
        guard allocated > end else { return }
        try file.truncate(to: end)
        current.withLockedValue { if $0.file === file { $0.allocatedLength = end } }
    }

    static func writeMarker(_ marker: LogSegment.Marker, to file: POSIXFile) throws {
        try file.write(LogSegment.marker(marker), at: UInt64(LogSegment.markerOffset))
    }
}
