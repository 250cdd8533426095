import StrataSupport

/// The checkpoint: one file holding a whole snapshot at one version.
///
/// ```
/// offset 0  8 bytes magic "STRATACK"
///        8  u32 format version (1)
///       12  u32 reserved (0)
///       16  u64 snapshot version
///       24  u64 payload length
///       32  u32 CRC-32C of the payload
///       36  u32 CRC-32C of bytes 0..<36
///       40  payload (the engine's snapshot encoding)
/// ```
/// A new checkpoint is written to `<path>.tmp`, synced, and renamed over `<path>` with the
/// directory synced, so the file at `<path>` is always a complete checkpoint.
public enum CheckpointFile {
    static let magic: [UInt8] = Array("STRATACK".utf8)
    static let formatVersion: UInt32 = 1
    /// The size of the checkpoint header; the payload starts at this offset.
    public static let headerSize = 40

    /// A checkpoint read back from disk.
    public struct Contents: Sendable {
        /// The version of the snapshot.
        public var version: UInt64
        /// The encoded snapshot.
        public var payload: [UInt8]
    }

    /// Durably replaces the checkpoint at `path` with `payload` at `version`.
    public static func write(path: String, version: UInt64, payload: [UInt8]) throws {
        var header = ByteWriter(capacity: headerSize)
        header.writeRaw(magic)
        header.writeFixed(formatVersion)
        header.writeFixed(UInt32(0))
        header.writeFixed(version)
        header.writeFixed(UInt64(payload.count))
        header.writeFixed(CRC32C.checksum(payload))
        header.writeFixed(CRC32C.checksum(header.bytes))

        let temporary = path + ".tmp"
        let file = try POSIXFile(path: temporary, mode: .truncate)
        try file.write(header.bytes, at: 0)
        try file.write(payload, at: UInt64(headerSize))
        try file.sync()
        try FileSystem.atomicReplace(temporary, with: path)
    }

    /// Reads the checkpoint at `path`, or returns nil when there is none.
    ///
    /// - Throws: ``StrataError/Code/invalidFileFormat`` when the file is not a Strata checkpoint,
    ///   ``StrataError/Code/corruptFile`` (with the offset) when a checksum fails.
    public static func read(path: String) throws -> Contents? {
        guard FileSystem.exists(path) else { return nil }
        let bytes = try POSIXFile(path: path, mode: .readOnly).readAll()
        return try bytes.withUnsafeBytes { (raw) throws -> Contents in
            guard raw.count >= 8, Array(raw[0..<8]) == magic else {
                throw StrataError(.invalidFileFormat, "not a Strata file (bad magic)", path: path, offset: 0)
            }
            guard raw.count >= headerSize else {
                throw StrataError(.corruptFile, "checkpoint header is truncated", path: path, offset: UInt64(raw.count))
            }
            let headerCRC = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 36, as: UInt32.self))
            guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<36])) == headerCRC else {
                throw StrataError(.corruptFile, "checkpoint header checksum mismatch", path: path, offset: 0)
            }
            let format = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            guard format == formatVersion else {
                throw StrataError(.invalidFileFormat, "unsupported checkpoint format \(format)", path: path, offset: 8)
            }
            let version = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            let length = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            guard length == UInt64(raw.count - headerSize) else {
                throw StrataError(.corruptFile, "checkpoint is \(raw.count - headerSize) bytes, header says \(length)",
                                  path: path, offset: UInt64(headerSize))
            }
            let payload = UnsafeRawBufferPointer(rebasing: raw[headerSize...])
            let payloadCRC = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
            guard CRC32C.checksum(payload) == payloadCRC else {
                throw StrataError(.corruptFile, "checkpoint payload checksum mismatch", path: path,
                                  offset: UInt64(headerSize))
            }
            return Contents(version: version, payload: Array(payload))
        }
    }
}
