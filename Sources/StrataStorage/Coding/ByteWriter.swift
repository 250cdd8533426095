/// Appends little-endian integers, LEB128 varints and byte strings to a growing buffer.
///
/// The encoding primitive under log records, changesets and checkpoints.
package struct ByteWriter: Sendable {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8]

    /// Creates an empty writer with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written so far.
    package var count: Int { bytes.count }

    /// The bytes written so far, handed over: the writer is empty afterwards, so the caller holds
    /// the only reference to them (and can change them without a copy).
    package mutating func takeBytes() -> [UInt8] {
        let taken = bytes
        bytes = []
        return taken
    }

    /// Appends one byte.
    package mutating func write(_ byte: UInt8) { bytes.append(byte) }


    /// Appends `value` as 4 little-endian bytes.
    package mutating func writeFixed(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` as 8 little-endian bytes.
    package mutating func writeFixed(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Overwrites 4 bytes at `offset` with `value`, little-endian.
    package mutating func patchFixed(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<4 { bytes[offset + index] = raw[index] }
        }
    }

    /// Overwrites `raw.count` bytes starting at `offset`.
    package mutating func patch(_ raw: [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<offset + raw.count, with: raw)
    }

    /// Appends `value` as an unsigned LEB128 varint (1–10 bytes).
    package mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Appends `value` zig-zag encoded as a varint, so small negative numbers stay short.
    package mutating func writeSignedVarint(_ value: Int64) {
        writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Appends `count` as a varint.
    package mutating func writeCount(_ count: Int) { writeVarint(UInt64(count)) }

    /// Appends raw bytes without a length prefix, copied in one move. (Arrays, not any sequence of
    /// bytes: a generic form, called from another module, is not specialized and appended through
    /// the sequence's witnesses, element by element; a commit's record and payload went through it.)
    package mutating func writeRaw(_ raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }

    /// Appends `count` zero bytes.
    package mutating func writeZeros(_ count: Int) {
        bytes.append(contentsOf: repeatElement(0, count: count))
    }

    /// Appends a length-prefixed byte string, copied in one move (an array, as for `writeRaw`).
    package mutating func writeBytes(_ raw: [UInt8]) {
        writeCount(raw.count)
        bytes.append(contentsOf: raw)
    }

    /// Appends a length-prefixed UTF-8 string.
    package mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            writeCount(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }
}
