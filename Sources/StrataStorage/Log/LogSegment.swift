import StrataSupport

/// One file of the commit log (format 2): a 64-byte header, then records back to back.
///
/// ```
/// offset 0  8 bytes magic "STRATLOG"
///        8  u32 format version (2)
///       12  u32 salt: random, the chain value of the segment's first record (see LogRecord)
///       16  u64 segment sequence number (1, 2, 3, ...; the same as in the file name)
///       24  u64 store identity: random, chosen when the store was created; the checkpoint
///               and every segment of one store carry the same value
///       32  u64 base version: the version the segment's first record follows (its first
///               record is base + 1); equal to the last version of the segment before it, or to
///               the version of the checkpoint that names this segment as its first
///       40  u32 reserved (0)
///       44  u32 CRC-32C of bytes 0..<44
///       48  durable marker, rewritten in place:
///       48    u64 durable length: every byte of the file before it is known to be on stable
///                 storage (at least the header; see below)
///       56    u32 flags: bit 0 "sealed": the segment is complete and segment sequence + 1 exists
///       60    u32 CRC-32C of bytes 48..<60
///       64  records (see LogRecord)
/// ```
/// Bytes 0..<48 are written once, when the segment is created (then synced, with the
/// directory). The durable marker is rewritten by ``CommitLog/sync()`` with the length that the
/// *previous* successful sync covered, before the new `fdatasync`: it never names bytes that were
/// not already synced, so whichever version of the marker a power cut leaves on disk tells the
/// truth. A marker whose checksum fails counts as "durable through the header". When the log
/// rotates, the old segment is synced in full before the new one is created, and then marked
/// sealed with its final length.
///
/// The current segment of a store that syncs every commit may extend past its last record with
/// zeros: space reserved ahead of the appends (``CommitLog/preallocate(inStepsOf:)``), which
/// recovery keeps and a rotation cuts off before it seals the segment.
///
/// Segments are named `<store>.log.<sequence as 16 hex digits>`, so sorting the names sorts
/// them by sequence. Format 1 segments (32-byte header, records without a chain) are not read by
/// ``CommitLog/open(storePath:anchor:)`` (``StrataError/Code/invalidFileFormat``); the engine
/// upgrades a format 1 store on its first read-write open (see ``FormatOneStore``).
package struct LogSegment {
    static let headerSize = 64
    static let markerOffset = 48
    static let magic: [UInt8] = Array("STRATLOG".utf8)
    package static let formatVersion: UInt32 = 2
    static let sealedFlag: UInt32 = 1

    let sequence: UInt64
    let path: String

    /// The fixed fields of a segment header.
    struct Header: Equatable {
        var salt: UInt32
        var sequence: UInt64
        var storeID: UInt64
        var baseVersion: UInt64
    }

    /// A decoded durable marker.
    struct Marker: Equatable {
        var durableLength: UInt64
        var sealed: Bool
    }

    static func path(storePath: String, sequence: UInt64) -> String {
        let hex = String(sequence, radix: 16)
        return storePath + ".log." + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// The whole 64-byte header of a new segment, its marker saying "durable through the header".
    static func header(_ fields: Header) -> [UInt8] {
        var writer = ByteWriter(capacity: headerSize)
        writer.writeRaw(magic)
        writer.writeFixed(formatVersion)
        writer.writeFixed(fields.salt)
        writer.writeFixed(fields.sequence)
        writer.writeFixed(fields.storeID)
        writer.writeFixed(fields.baseVersion)
        writer.writeFixed(UInt32(0))
        writer.writeFixed(CRC32C.checksum(writer.bytes))
        writer.writeRaw(marker(Marker(durableLength: UInt64(headerSize), sealed: false)))
        return writer.bytes
    }

    /// The 16 bytes of a durable marker.
    static func marker(_ marker: Marker) -> [UInt8] {
        var writer = ByteWriter(capacity: 16)
        writer.writeFixed(marker.durableLength)
        writer.writeFixed(marker.sealed ? sealedFlag : 0)
        writer.writeFixed(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Creates an empty segment file and syncs it and its directory (``openNew(storePath:sequence:)``,
    /// then ``initialize(_:fields:)``).
    static func create(storePath: String, fields: Header) throws -> (LogSegment, POSIXFile) {
        try initialize(openNew(storePath: storePath, sequence: fields.sequence), fields: fields)
    }

    /// Opens the file of segment `sequence`, new and empty (truncating a leftover of a failed
    /// creation). A failure writes nothing.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` (no descriptor left, no space for a new file, no
    ///   permission: the `errno` says which).
    static func openNew(storePath: String, sequence: UInt64) throws -> POSIXFile {
        try POSIXFile(path: path(storePath: storePath, sequence: sequence), mode: .truncate)
    }

    /// Writes the header of a segment opened with ``openNew(storePath:sequence:)`` and syncs it
    /// and its directory.
    ///
    /// When a step fails, the file is removed (best effort): appends then continue in the
    /// segment before it, and recovery also removes an empty newest segment that such a failed
    /// rotation leaves (see ``CommitLog/open(storePath:anchor:)``).
    static func initialize(_ file: POSIXFile, fields: Header) throws -> (LogSegment, POSIXFile) {
        do {
            try file.write(header(fields), at: 0)
            try file.sync()
            try FileSystem.syncDirectory(containing: file.path)
        } catch {
            try? FileSystem.remove(file.path)
            throw error
        }
        return (LogSegment(sequence: fields.sequence, path: file.path), file)
    }

    /// Whether `bytes` hold a header and nothing after it but zeros: a segment without records.
    static func hasNoRecords(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= headerSize && isZero(UnsafeRawBufferPointer(rebasing: bytes[headerSize...]))
    }

    /// Whether every byte of `bytes` is zero, checked eight at a time (a segment's reserved space
    /// is read at every open).
    static func isZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let words = bytes.count / 8
        for index in 0..<words where bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) != 0 {
            return false
        }
        return bytes[(words * 8)...].allSatisfy { $0 == 0 }
    }

    /// Whether `bytes` look like a segment whose creation was interrupted before its header
    /// reached the disk: shorter than the header, or a header of zero bytes.
    static func isUnwritten(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count < headerSize || bytes[0..<markerOffset].allSatisfy { $0 == 0 }
    }

    /// Checks the header of a segment's bytes.
    ///
    /// - Throws: ``StrataError/Code/invalidFileFormat`` for a foreign file or another format
    ///   version, ``StrataError/Code/corruptFile`` for a damaged header.
    static func validateHeader(_ bytes: UnsafeRawBufferPointer, path: String) throws -> Header {
        guard bytes.count >= 12, Array(bytes[0..<8]) == magic else {
            throw StrataError(.invalidFileFormat, "not a Strata commit log (bad magic)", path: path, offset: 0)
        }
        let format = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard format == formatVersion else {
            throw StrataError(.invalidFileFormat,
                              "unsupported commit log format \(format) (this version reads format \(formatVersion); "
                                  + "format 1 was written by an earlier Strata and is upgraded by opening the store "
                                  + "read-write)",
                              path: path, offset: 8)
        }
        guard bytes.count >= headerSize else {
            throw StrataError(.corruptFile, "log segment header is truncated", path: path, offset: 0)
        }
        let crc = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 44, as: UInt32.self))
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<44])) == crc else {
            throw StrataError(.corruptFile, "log segment header checksum mismatch", path: path, offset: 0)
        }
        return Header(
            salt: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self)),
            sequence: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
            storeID: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)),
            baseVersion: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 32, as: UInt64.self)))
    }

    /// The durable marker of a segment whose header is valid, or nil when its checksum fails.
    static func readMarker(_ bytes: UnsafeRawBufferPointer) -> Marker? {
        let crc = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 60, as: UInt32.self))
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[markerOffset..<60])) == crc else { return nil }
        let flags = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 56, as: UInt32.self))
        return Marker(durableLength: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 48, as: UInt64.self)),
                      sealed: flags & sealedFlag != 0)
    }
}
