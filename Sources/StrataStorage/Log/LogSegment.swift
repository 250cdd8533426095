import StrataSupport

/// One file of the commit log: a 32-byte header, then records back to back.
///
/// ```
/// offset 0  8 bytes magic "STRATLOG"
///        8  u32 format version (1)
///       12  u32 reserved (0)
///       16  u64 segment sequence number
///       24  u32 reserved (0)
///       28  u32 CRC-32C of bytes 0..<28
/// ```
/// Segments are named `<store>.log.<sequence as 16 hex digits>`, so sorting the names sorts
/// them by sequence.
struct LogSegment {
    static let headerSize = 32
    static let magic: [UInt8] = Array("STRATLOG".utf8)
    static let formatVersion: UInt32 = 1

    let sequence: UInt64
    let path: String

    static func path(storePath: String, sequence: UInt64) -> String {
        let hex = String(sequence, radix: 16)
        return storePath + ".log." + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    static func header(sequence: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: headerSize)
        writer.writeRaw(magic)
        writer.writeFixed(formatVersion)
        writer.writeFixed(UInt32(0))
        writer.writeFixed(sequence)
        writer.writeFixed(UInt32(0))
        writer.writeFixed(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Creates an empty segment file and syncs it and its directory.
    static func create(storePath: String, sequence: UInt64) throws -> (LogSegment, POSIXFile) {
        let path = path(storePath: storePath, sequence: sequence)
        let file = try POSIXFile(path: path, mode: .truncate)
        try file.write(header(sequence: sequence), at: 0)
        try file.sync()
        try FileSystem.syncDirectory(containing: path)
        return (LogSegment(sequence: sequence, path: path), file)
    }

    /// Checks the header of a segment's bytes.
    ///
    /// - Returns: the sequence number.
    static func validateHeader(_ bytes: UnsafeRawBufferPointer, path: String) throws -> UInt64 {
        guard bytes.count >= headerSize else {
            throw StrataError(.corruptFile, "log segment header is truncated", path: path, offset: 0)
        }
        guard Array(bytes[0..<8]) == magic else {
            throw StrataError(.invalidFileFormat, "not a Strata commit log (bad magic)", path: path, offset: 0)
        }
        let crc = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<28])) == crc else {
            throw StrataError(.corruptFile, "log segment header checksum mismatch", path: path, offset: 0)
        }
        let format = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard format == formatVersion else {
            throw StrataError(.invalidFileFormat, "unsupported commit log format \(format)", path: path, offset: 8)
        }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    }
}
