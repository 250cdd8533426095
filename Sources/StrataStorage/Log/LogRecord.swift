import StrataSupport

/// The framing of one commit in the log: a 24-byte header, then the payload.
///
/// ```
/// offset 0  u32 magic "SLR1"
///        4  u32 payload length
///        8  u64 version
///       16  u32 CRC-32C of the payload
///       20  u32 CRC-32C of bytes 0..<20 (the header itself)
///       24  payload
/// ```
/// The header checksum lets recovery tell a torn tail (nothing valid follows) from damage in the
/// middle of the log (a valid record follows the bad one).
public enum LogRecord {
    /// The size of the header in bytes.
    public static let headerSize = 24
    static let magic: UInt32 = 0x3152_4C53

    /// A writer that starts with room for the header; append the payload, then ``seal(_:version:)``.
    public static func makeWriter(capacity: Int = 256) -> ByteWriter {
        var writer = ByteWriter(capacity: capacity + headerSize)
        writer.writeRaw(repeatElement(0, count: headerSize))
        return writer
    }

    /// Fills in the header of a record built with ``makeWriter(capacity:)``.
    public static func seal(_ writer: inout ByteWriter, version: UInt64) {
        let payloadLength = writer.count - headerSize
        let payloadCRC = writer.bytes.withUnsafeBytes {
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[headerSize...]))
        }
        var header = ByteWriter(capacity: headerSize)
        header.writeFixed(magic)
        header.writeFixed(UInt32(payloadLength))
        header.writeFixed(version)
        header.writeFixed(payloadCRC)
        header.writeFixed(CRC32C.checksum(header.bytes))
        writer.patch(header.bytes, at: 0)
    }

    /// A decoded header.
    struct Header {
        var payloadLength: Int
        var version: UInt64
        var payloadCRC: UInt32
    }

    /// Decodes the header at `offset` of `bytes`, or nil when it is not a valid header.
    static func header(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Header? {
        guard bytes.count - offset >= headerSize else { return nil }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + headerSize])
        guard UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)) == magic else { return nil }
        let headerCRC = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<20])) == headerCRC else { return nil }
        return Header(
            payloadLength: Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
            version: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
            payloadCRC: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
    }
}
