import StrataSupport

/// Reads what a ``ByteWriter`` wrote, checking every bound.
///
/// A read past the end or a malformed varint throws ``StrataError/Code/corruptFile`` with the
/// offset, so a damaged file is reported, never trapped on.
package struct ByteReader: ~Copyable {
    private let base: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    package private(set) var offset: Int
    /// Where the bytes came from, for error messages.
    package let origin: String
    /// The file offset of `base[0]`, for error messages.
    package let originOffset: UInt64

    /// Creates a reader over `bytes`, which must stay valid while the reader is used.
    package init(_ bytes: UnsafeRawBufferPointer, origin: String, originOffset: UInt64 = 0) {
        base = bytes
        offset = 0
        self.origin = origin
        self.originOffset = originOffset
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { offset == base.count }

    /// The number of bytes left.
    package var remaining: Int { base.count - offset }

    /// An error that says the data is malformed at the current offset.
    package func corrupt(_ what: String) -> StrataError {
        StrataError(.corruptFile, "malformed data: \(what)", path: origin, offset: originOffset + UInt64(offset))
    }

    private mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw corrupt("needs \(count) bytes, \(remaining) left") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
    }

    /// Reads one byte.
    package mutating func readByte() throws -> UInt8 {
        guard offset < base.count else { throw corrupt("unexpected end") }
        defer { offset += 1 }
        return base[offset]
    }

    /// Reads 4 little-endian bytes.
    package mutating func readFixed32() throws -> UInt32 {
        let raw = try take(4)
        return UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self))
    }

    /// Reads 8 little-endian bytes.
    package mutating func readFixed64() throws -> UInt64 {
        let raw = try take(8)
        return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
    }

    /// Reads an unsigned LEB128 varint.
    package mutating func readVarint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            guard shift < 64 else { throw corrupt("varint too long") }
            guard shift < 63 || byte <= 1 else { throw corrupt("varint overflows 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads a zig-zag encoded varint.
    package mutating func readSignedVarint() throws -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// Reads a count and checks it against the bytes left (each element needs at least
    /// `minimumElementSize` bytes), so a corrupt count cannot cause a huge allocation.
    package mutating func readCount(minimumElementSize: Int = 1) throws -> Int {
        let raw = try readVarint()
        guard raw <= UInt64(remaining / max(minimumElementSize, 1)) || (raw == 0) else {
            throw corrupt("count \(raw) exceeds the data left")
        }
        return Int(raw)
    }

    /// Reads `count` raw bytes.
    package mutating func readRaw(_ count: Int) throws -> [UInt8] {
        Array(try take(count))
    }

    /// Reads a length-prefixed byte string.
    package mutating func readBytes() throws -> [UInt8] {
        let count = try readCount()
        return Array(try take(count))
    }

    /// Reads a length-prefixed UTF-8 string, rejecting invalid UTF-8.
    package mutating func readString() throws -> String {
        let count = try readCount()
        let raw = try take(count)
        // ASCII (most strings) is valid UTF-8 and takes the fast decoding path; anything else is
        // validated strictly.
        if Self.isASCII(raw) { return String(decoding: raw.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
        guard let string = String(validating: raw, as: UTF8.self) else { throw corrupt("invalid UTF-8") }
        return string
    }

    /// Whether every byte of `bytes` is below 0x80, eight at a time.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
