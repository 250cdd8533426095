import StrataSupport

/// Reads a store written in format 1 (the format before chained records and store identities),
/// so that the engine can upgrade it to format 2 on a read-write open.
///
/// Format 1 files:
/// ```
/// checkpoint   0  8 bytes magic "STRATACK"      segment   0  8 bytes magic "STRATLOG"
///              8  u32 format version (1)                   8  u32 format version (1)
///             12  u32 reserved                            12  u32 reserved
///             16  u64 snapshot version                    16  u64 segment sequence
///             24  u64 payload length                      24  u32 reserved
///             32  u32 CRC-32C of the payload              28  u32 CRC-32C of bytes 0..<28
///             36  u32 CRC-32C of bytes 0..<36             32  records
///             40  payload
///
/// record       0  u32 magic "SLR1"
///              4  u32 payload length
///              8  u64 version
///             16  u32 CRC-32C of the payload
///             20  u32 CRC-32C of bytes 0..<20
///             24  payload
/// ```
/// Format 1 rules apply: records older than the checkpoint are skipped, versions follow each
/// other, and a damaged record is a torn tail (cut) only in the last segment and only when no
/// valid record header follows it anywhere in that segment; otherwise it is corruption. The
/// payloads (snapshot and instruction encodings) are the same in both formats.
package enum FormatOneStore {
    /// What a format 1 store holds.
    package struct Contents: Sendable {
        /// The checkpoint's version and payload, if there is a checkpoint.
        package var checkpoint: (version: UInt64, payload: [UInt8])?
        /// The records after the checkpoint, in version order.
        package var records: [CommitLog.RecoveredRecord]
        /// The format 1 segment files (to delete once the upgrade is durable).
        package var segmentPaths: [String]
        /// The highest format 1 segment sequence number (0 when there are none).
        package var lastSequence: UInt64
    }

    static let recordMagic: UInt32 = 0x3152_4C53
    static let recordHeaderSize = 24
    static let segmentHeaderSize = 32

    /// Whether the store at `storePath` is in format 1: its checkpoint is, or (without a
    /// checkpoint) its first log segment is.
    package static func detect(storePath: String, checkpoint: POSIXFile?) throws -> Bool {
        if let checkpoint { return try isFormatOne(checkpoint.read(count: 12, at: 0), magic: CheckpointFile.magic) }
        guard let first = try CommitLog.segments(storePath: storePath).first else { return false }
        return try isFormatOne(POSIXFile(path: first.path, mode: .readOnly).read(count: 12, at: 0),
                               magic: LogSegment.magic)
    }

    private static func isFormatOne(_ bytes: [UInt8], magic: [UInt8]) -> Bool {
        bytes.count == 12 && Array(bytes[0..<8]) == magic && bytes[8..<12].elementsEqual([1, 0, 0, 0])
    }

    /// Reads the format 1 checkpoint in `checkpoint` (if any) and the format 1 log segments of
    /// `storePath`. A format 2 segment after them (left by an upgrade that did not finish) is ignored.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` or ``StrataError/Code/invalidFileFormat``
    ///   naming the file and offset.
    package static func read(storePath: String, checkpoint: POSIXFile?) throws -> Contents {
        var contents = Contents(checkpoint: nil, records: [], segmentPaths: [], lastSequence: 0)
        if let checkpoint {
            contents.checkpoint = try readCheckpoint(checkpoint.readAll(), path: checkpoint.path)
        }
        var segments: [(LogSegment, [UInt8])] = []
        for segment in try CommitLog.segments(storePath: storePath) {
            let bytes = try POSIXFile(path: segment.path, mode: .readOnly).readAll()
            if bytes.count >= segmentHeaderSize && !isFormatOne(Array(bytes.prefix(12)), magic: LogSegment.magic)
                && !segments.isEmpty { break }
            segments.append((segment, bytes))
        }
        var lastVersion = contents.checkpoint?.version ?? 0
        var previous: UInt64?
        for (index, (segment, bytes)) in segments.enumerated() {
            try bytes.withUnsafeBytes { raw in
                try scan(raw, path: segment.path, isLast: index == segments.count - 1, lastVersion: &lastVersion,
                         previous: &previous, into: &contents.records)
            }
            contents.segmentPaths.append(segment.path)
            contents.lastSequence = segment.sequence
        }
        return contents
    }

    private static func readCheckpoint(_ bytes: [UInt8], path: String) throws -> (version: UInt64, payload: [UInt8]) {
        try bytes.withUnsafeBytes { raw in
            let headerSize = 40
            guard raw.count >= headerSize else {
                throw StrataError(.corruptFile, "checkpoint header is truncated", path: path, offset: UInt64(raw.count))
            }
            let headerCRC = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 36, as: UInt32.self))
            guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<36])) == headerCRC else {
                throw StrataError(.corruptFile, "checkpoint header checksum mismatch", path: path, offset: 0)
            }
            let version = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            let length = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            let payload = UnsafeRawBufferPointer(rebasing: raw[headerSize...])
            guard length == UInt64(payload.count),
                  CRC32C.checksum(payload) == UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
            else {
                throw StrataError(.corruptFile, "checkpoint payload is damaged", path: path, offset: UInt64(headerSize))
            }
            return (version, Array(payload))
        }
    }

    private static func scan(
        _ bytes: UnsafeRawBufferPointer, path: String, isLast: Bool, lastVersion: inout UInt64,
        previous: inout UInt64?, into records: inout [CommitLog.RecoveredRecord]
    ) throws {
        // Format 1 removed a last segment shorter than its header: its creation was interrupted.
        if isLast && bytes.count < segmentHeaderSize { return }
        guard bytes.count >= segmentHeaderSize, Array(bytes[0..<8]) == LogSegment.magic,
              UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) == 1
        else {
            throw StrataError(.invalidFileFormat, "not a format 1 commit log segment", path: path, offset: 0)
        }
        let crc = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<28])) == crc else {
            throw StrataError(.corruptFile, "log segment header checksum mismatch", path: path, offset: 0)
        }
        var offset = segmentHeaderSize
        while offset < bytes.count {
            guard let header = recordHeader(bytes, at: offset) else {
                try tornTail(bytes, at: offset, path: path, isLast: isLast)
                return
            }
            let start = offset + recordHeaderSize
            let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<start + header.length])
            guard CRC32C.checksum(payload) == header.payloadCRC else {
                try tornTail(bytes, at: offset, path: path, isLast: isLast)
                return
            }
            if let previous, header.version != previous + 1 {
                throw StrataError(.corruptFile, "commit log record \(header.version) follows record \(previous)",
                                  path: path, offset: UInt64(offset))
            }
            previous = header.version
            if header.version > lastVersion {
                guard header.version == lastVersion + 1 else {
                    throw StrataError(.corruptFile, "commit log skips from version \(lastVersion) to \(header.version)",
                                      path: path, offset: UInt64(offset))
                }
                records.append(CommitLog.RecoveredRecord(version: header.version, payload: Array(payload), path: path,
                                                         offset: UInt64(offset)))
                lastVersion = header.version
            }
            offset = start + header.length
        }
    }

    /// A record header that is valid and whose payload fits in `bytes`.
    private static func recordHeader(
        _ bytes: UnsafeRawBufferPointer, at offset: Int
    ) -> (length: Int, version: UInt64, payloadCRC: UInt32)? {
        guard bytes.count - offset >= recordHeaderSize,
              UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) == recordMagic,
              CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 20]))
                == UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 20, as: UInt32.self))
        else { return nil }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
        guard length <= bytes.count - offset - recordHeaderSize else { return nil }
        return (length, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)),
                UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt32.self)))
    }

    /// Format 1's rule: a damaged record is a torn tail only in the last segment with no valid
    /// record header anywhere after it.
    private static func tornTail(_ bytes: UnsafeRawBufferPointer, at offset: Int, path: String, isLast: Bool) throws {
        let corruption = StrataError(.corruptFile, "commit log record is damaged and later records follow it",
                                     path: path, offset: UInt64(offset))
        guard isLast else { throw corruption }
        for probe in (offset + 1)..<max(offset + 1, bytes.count - recordHeaderSize + 1)
        where recordHeader(bytes, at: probe) != nil {
            throw corruption
        }
    }
}
