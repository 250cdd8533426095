import StrataSupport

/// The framing of one commit in the log (format 2): a 32-byte header, then the payload.
///
/// ```
/// offset 0  u32 magic "SLR2"
///        4  u32 payload length
///        8  u64 version
///       16  u32 CRC-32C of the payload
///       20  u32 chain: the header CRC (bytes 28..<32) of the previous record in the same
///               segment, or the segment's random salt for its first record
///       24  u32 reserved (0)
///       28  u32 CRC-32C of bytes 0..<28 (the header itself, chain included)
///       32  payload
/// ```
/// The chain ties every record to the one before it and, through the salt, to its segment: a
/// record header that a client forged inside a payload, or a record left over from an earlier
/// write at the same offset, does not carry the expected chain value and is never accepted as
/// the next record. Recovery reads records only at the offset where the previous one ended; what
/// it does with the first record that fails its checks is described in ``CommitLog``.
///
/// The engine builds a record with ``makeWriter(capacity:)`` and ``seal(_:version:)``, which fill
/// in everything but the chain; ``CommitLog/append(_:)`` writes the header with the chain of the
/// segment it lands in.
package enum LogRecord {
    /// The size of the header in bytes.
    package static let headerSize = 32
    static let magic: UInt32 = 0x3252_4C53

    /// A writer that starts with room for the header; append the payload, then ``seal(_:version:)``.
    package static func makeWriter(capacity: Int = 256) -> ByteWriter {
        var writer = ByteWriter(capacity: capacity + headerSize)
        writer.writeZeros(headerSize)
        return writer
    }

    /// Fills in the header of a record built with ``makeWriter(capacity:)`` (with a zero chain,
    /// which ``CommitLog/append(_:)`` replaces).
    package static func seal(_ writer: inout ByteWriter, version: UInt64) {
        let payloadLength = writer.count - headerSize
        let payloadCRC = writer.bytes.withUnsafeBytes {
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[headerSize...]))
        }
        writer.patch(encodeHeader(payloadLength: payloadLength, version: version, payloadCRC: payloadCRC, chain: 0),
                     at: 0)
    }

    /// The header bytes for the given fields.
    static func encodeHeader(payloadLength: Int, version: UInt64, payloadCRC: UInt32, chain: UInt32) -> [UInt8] {
        var header = ByteWriter(capacity: headerSize)
        header.writeFixed(magic)
        header.writeFixed(UInt32(payloadLength))
        header.writeFixed(version)
        header.writeFixed(payloadCRC)
        header.writeFixed(chain)
        header.writeFixed(UInt32(0))
        header.writeFixed(CRC32C.checksum(header.bytes))
        return header.bytes
    }

    /// A decoded header.
    struct Header {
        var payloadLength: Int
        var version: UInt64
        var payloadCRC: UInt32
        var chain: UInt32
        /// The header's own checksum: the chain value of the record after this one.
        var headerCRC: UInt32
    }

    /// Decodes the header at `offset` of `bytes`, or nil when it is not a valid header.
    static func header(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Header? {
        guard offset >= 0, bytes.count - offset >= headerSize else { return nil }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + headerSize])
        guard UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)) == magic else { return nil }
        let headerCRC = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<28])) == headerCRC else { return nil }
        return Header(
            payloadLength: Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
            version: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
            payloadCRC: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)),
            chain: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 20, as: UInt32.self)),
            headerCRC: headerCRC)
    }
}
