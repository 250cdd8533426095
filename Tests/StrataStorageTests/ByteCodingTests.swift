import Testing
@testable import StrataStorage
import StrataSupport

/// Runs `body` with a reader over `bytes`.
private func reading<R>(
    _ bytes: [UInt8], originOffset: UInt64 = 0, _ body: (inout ByteReader) throws -> R
) throws -> R {
    try bytes.withUnsafeBytes { raw in
        var reader = ByteReader(raw, origin: "test-origin", originOffset: originOffset)
        return try body(&reader)
    }
}

/// Runs `body` with a reader over `bytes` and returns the StrataError it throws (nil if none).
private func readError(
    _ bytes: [UInt8], originOffset: UInt64 = 0, _ body: (inout ByteReader) throws -> Void
) -> StrataError? {
    do {
        try reading(bytes, originOffset: originOffset, body)
        return nil
    } catch let error as StrataError {
        return error
    } catch {
        Issue.record("expected a StrataError, got \(error)")
        return nil
    }
}

@Suite("ByteWriter and ByteReader")
struct ByteCodingTests {
    // MARK: - Round trips

    @Test("Fixed-width integers are written little-endian and read back")
    func fixedWidth() throws {
        var writer = ByteWriter()
        writer.writeFixed(UInt32(0x0102_0304))
        writer.writeFixed(UInt64(0x0102_0304_0506_0708))
        writer.writeFixed(UInt32.max)
        writer.writeFixed(UInt64.max)
        #expect(Array(writer.bytes[0..<12]) == [4, 3, 2, 1, 8, 7, 6, 5, 4, 3, 2, 1])
        #expect(writer.count == 24)
        let read = try reading(writer.bytes) { reader in
            (
                try reader.readFixed32(), try reader.readFixed64(), try reader.readFixed32(), try reader.readFixed64(),
                reader.isAtEnd
            )
        }
        #expect(read.0 == 0x0102_0304)
        #expect(read.1 == 0x0102_0304_0506_0708)
        #expect(read.2 == UInt32.max)
        #expect(read.3 == UInt64.max)
        #expect(read.4)
    }

    static let varintCases: [(UInt64, [UInt8])] = [
        (0, [0x00]),
        (1, [0x01]),
        (127, [0x7F]),
        (128, [0x80, 0x01]),
        (300, [0xAC, 0x02]),
        (16383, [0xFF, 0x7F]),
        (16384, [0x80, 0x80, 0x01]),
        (UInt64(UInt32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        (UInt64.max - 1, [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test("Unsigned varints round-trip, including UInt64.max, with the LEB128 encoding", arguments: varintCases)
    func varint(value: UInt64, encoding: [UInt8]) throws {
        var writer = ByteWriter()
        writer.writeVarint(value)
        #expect(writer.bytes == encoding)
        let read = try reading(writer.bytes) { reader in (try reader.readVarint(), reader.isAtEnd) }
        #expect(read.0 == value)
        #expect(read.1)
    }

    static let signedCases: [(Int64, [UInt8])] = [
        (0, [0x00]),
        (-1, [0x01]),
        (1, [0x02]),
        (-64, [0x7F]),
        (64, [0x80, 0x01]),
        (Int64.max, [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        (Int64.min, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test("Signed varints round-trip zig-zag encoded, including Int64.min and Int64.max", arguments: signedCases)
    func signedVarint(value: Int64, encoding: [UInt8]) throws {
        var writer = ByteWriter()
        writer.writeSignedVarint(value)
        #expect(writer.bytes == encoding)
        let read = try reading(writer.bytes) { reader in (try reader.readSignedVarint(), reader.isAtEnd) }
        #expect(read.0 == value)
        #expect(read.1)
    }

    @Test("A mixed sequence of values reads back in order")
    func mixedSequence() throws {
        let strings = ["", "plain", "héllo wörld", "日本語のテキスト", "🧪🧬 emoji", "nul\u{0}inside"]
        let blobs: [[UInt8]] = [[], [0], [0xFF, 0x00, 0x80, 0x7F], Array(0...255)]
        let signed: [Int64] = [0, -1, 1, Int64.min, Int64.max, -123_456_789, 987_654_321]
        var writer = ByteWriter(capacity: 4)
        for string in strings { writer.writeString(string) }
        for blob in blobs { writer.writeBytes(blob) }
        for value in signed { writer.writeSignedVarint(value) }
        writer.write(0xAB)
        writer.writeCount(3)
        writer.writeRaw([9, 8, 7])

        let read = try reading(writer.bytes) { reader in
            let readStrings = try strings.map { _ in try reader.readString() }
            let readBlobs = try blobs.map { _ in try reader.readBytes() }
            let readSigned = try signed.map { _ in try reader.readSignedVarint() }
            let byte = try reader.readByte()
            let count = try reader.readCount()
            let remainingBefore = reader.remaining
            let raw = try reader.readRaw(3)
            return (
                readStrings, readBlobs, readSigned, byte, count, remainingBefore, raw, reader.isAtEnd,
                reader.remaining
            )
        }
        #expect(read.0 == strings)
        #expect(read.1 == blobs)
        #expect(read.2 == signed)
        #expect(read.3 == 0xAB)
        #expect(read.4 == 3)
        #expect(read.5 == 3)
        #expect(read.6 == [9, 8, 7])
        #expect(read.7)
        #expect(read.8 == 0)
    }

    @Test("A string's length prefix counts UTF-8 bytes, not characters")
    func stringLengthIsUTF8() {
        var writer = ByteWriter()
        writer.writeString("é🧪")
        #expect(writer.bytes == [6, 0xC3, 0xA9, 0xF0, 0x9F, 0xA7, 0xAA])
    }

    @Test("patchFixed and patch overwrite bytes in place without changing the length")
    func patching() throws {
        var writer = ByteWriter()
        writer.writeRaw([UInt8](repeating: 0, count: 10))
        writer.patchFixed(0xDDCC_BBAA, at: 1)
        writer.patch([1, 2, 3], at: 7)
        #expect(writer.bytes == [0, 0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 1, 2, 3])
    }

    // MARK: - Malformed input

    @Test("Reading a byte, a fixed32 or a fixed64 past the end throws corruptFile")
    func pastTheEnd() {
        let empty = readError([]) { _ = try $0.readByte() }
        #expect(empty?.code == .corruptFile)
        let short32 = readError([1, 2, 3]) { _ = try $0.readFixed32() }
        #expect(short32?.code == .corruptFile)
        let short64 = readError([1, 2, 3, 4, 5, 6, 7]) { _ = try $0.readFixed64() }
        #expect(short64?.code == .corruptFile)
        let afterData = readError([1, 2]) { reader in
            _ = try reader.readByte()
            _ = try reader.readByte()
            _ = try reader.readByte()
        }
        #expect(afterData?.code == .corruptFile)
    }

    @Test("The error names the origin and the absolute offset where the read failed")
    func errorLocation() {
        let error = readError([0xAA, 0xBB, 0xCC], originOffset: 1000) { reader in
            _ = try reader.readByte()
            _ = try reader.readFixed32()
        }
        #expect(error?.code == .corruptFile)
        #expect(error?.path == "test-origin")
        #expect(error?.offset == 1001)
    }

    @Test("A failed read consumes nothing, so the reader still holds the remaining bytes")
    func failedReadConsumesNothing() throws {
        let read = try reading([1, 2, 3]) { reader in
            let failed = (try? reader.readFixed64()) == nil
            return (failed, reader.remaining, try reader.readByte())
        }
        #expect(read.0)
        #expect(read.1 == 3)
        #expect(read.2 == 1)
    }

    @Test("A varint cut off in the middle throws corruptFile")
    func truncatedVarint() {
        #expect(readError([0x80]) { _ = try $0.readVarint() }?.code == .corruptFile)
        #expect(readError([0xFF, 0xFF, 0xFF]) { _ = try $0.readVarint() }?.code == .corruptFile)
        // UInt64.max without its last byte.
        let cut = [UInt8](repeating: 0xFF, count: 9)
        #expect(readError(cut) { _ = try $0.readVarint() }?.code == .corruptFile)
        #expect(readError(cut) { _ = try $0.readSignedVarint() }?.code == .corruptFile)
    }

    @Test("A varint longer than 10 bytes throws corruptFile instead of overflowing")
    func overlongVarint() {
        let overlong = [UInt8](repeating: 0xFF, count: 11) + [0x01]
        #expect(readError(overlong) { _ = try $0.readVarint() }?.code == .corruptFile)
        let padded = [UInt8](repeating: 0x80, count: 12) + [0x00]
        #expect(readError(padded) { _ = try $0.readVarint() }?.code == .corruptFile)
        // Eleven bytes, the shortest varint that is too long.
        let eleven = [UInt8](repeating: 0x80, count: 10) + [0x00]
        #expect(readError(eleven) { _ = try $0.readVarint() }?.code == .corruptFile)
    }

    @Test("A 10-byte varint whose last byte carries bits beyond 64 throws corruptFile instead of dropping them")
    func overflowingTenthByte() {
        // 9 continuation bytes carry 63 bits; the 10th may only hold bit 63 (0x00 or 0x01).
        for last: UInt8 in [0x02, 0x7F] {
            let overflowing = [UInt8](repeating: 0xFF, count: 9) + [last]
            let error = readError(overflowing) { _ = try $0.readVarint() }
            #expect(error?.code == .corruptFile, "10th byte \(last)")
        }
    }

    @Test("A byte string or string whose length exceeds the bytes left throws corruptFile")
    func countBeyondRemaining() {
        #expect(readError([5, 1, 2, 3]) { _ = try $0.readBytes() }?.code == .corruptFile)
        #expect(readError([5, 0x61, 0x62]) { _ = try $0.readString() }?.code == .corruptFile)
        #expect(readError([1]) { _ = try $0.readBytes() }?.code == .corruptFile)
    }

    @Test("Huge counts (up to UInt64.max) throw corruptFile instead of trapping or allocating")
    func hugeCounts() {
        for count in [UInt64(Int.max), UInt64(Int.max) + 1, UInt64.max, 1 << 40] {
            var writer = ByteWriter()
            writer.writeVarint(count)
            writer.writeRaw([1, 2, 3, 4])
            #expect(readError(writer.bytes) { _ = try $0.readBytes() }?.code == .corruptFile, "count \(count)")
            #expect(readError(writer.bytes) { _ = try $0.readString() }?.code == .corruptFile, "count \(count)")
            #expect(readError(writer.bytes) { _ = try $0.readCount() }?.code == .corruptFile, "count \(count)")
        }
    }

    @Test("readCount checks the count against the minimum element size")
    func readCountMinimumElementSize() throws {
        // Count 2, then 7 bytes: two 4-byte elements do not fit, two 3-byte elements do.
        let bytes: [UInt8] = [2, 0, 0, 0, 0, 0, 0, 0]
        let error = readError(bytes) { _ = try $0.readCount(minimumElementSize: 4) }
        #expect(error?.code == .corruptFile)
        #expect(try reading(bytes) { try $0.readCount(minimumElementSize: 3) } == 2)
        #expect(try reading([0]) { try $0.readCount(minimumElementSize: 8) } == 0)
    }

    @Test("readRaw with a negative or too large count throws corruptFile")
    func readRawBounds() {
        #expect(readError([1, 2]) { _ = try $0.readRaw(-1) }?.code == .corruptFile)
        #expect(readError([1, 2]) { _ = try $0.readRaw(3) }?.code == .corruptFile)
        #expect(readError([1, 2]) { _ = try $0.readRaw(Int.max) }?.code == .corruptFile)
    }

    @Test("A string that is not valid UTF-8 throws corruptFile")
    func invalidUTF8() {
        #expect(readError([2, 0xC3, 0x28]) { _ = try $0.readString() }?.code == .corruptFile)
        #expect(readError([1, 0xFF]) { _ = try $0.readString() }?.code == .corruptFile)
        #expect(readError([3, 0xED, 0xA0, 0x80]) { _ = try $0.readString() }?.code == .corruptFile)
        // Past the eight-byte ASCII check: an invalid byte in every position of a longer string.
        for position in 0..<20 {
            var bytes = Array("abcdefghijklmnopqrst".utf8)
            bytes[position] = 0xFF
            #expect(readError([20] + bytes) { _ = try $0.readString() }?.code == .corruptFile, "at \(position)")
        }
    }

    @Test("ASCII and multi-byte strings of every length up to 40 read back as written")
    func stringsReadBack() throws {
        for length in 0...40 {
            for text in [String(repeating: "a", count: length), String(repeating: "é", count: length / 2) + "z"] {
                var writer = ByteWriter()
                writer.writeString(text)
                #expect(try reading(writer.bytes) { try $0.readString() } == text)
            }
        }
    }

    @Test("Every truncation of valid data throws corruptFile at some read, never traps")
    func everyTruncation() throws {
        var writer = ByteWriter()
        writer.writeVarint(UInt64.max)
        writer.writeSignedVarint(Int64.min)
        writer.writeString("héllo 🧪")
        writer.writeBytes([1, 2, 3, 4, 5])
        writer.writeFixed(UInt32(7))
        writer.writeFixed(UInt64(9))
        let full = writer.bytes
        func readAll(_ reader: inout ByteReader) throws {
            let varint = try reader.readVarint()
            let signed = try reader.readSignedVarint()
            let string = try reader.readString()
            let bytes = try reader.readBytes()
            let fixed32 = try reader.readFixed32()
            let fixed64 = try reader.readFixed64()
            #expect(varint == UInt64.max)
            #expect(signed == Int64.min)
            #expect(string == "héllo 🧪")
            #expect(bytes == [1, 2, 3, 4, 5])
            #expect(fixed32 == 7)
            #expect(fixed64 == 9)
        }
        try reading(full) { try readAll(&$0) }
        for length in 0..<full.count {
            let error = readError(Array(full[..<length])) { try readAll(&$0) }
            #expect(error?.code == .corruptFile, "truncated to \(length) bytes")
            #expect(error.map { $0.offset! <= UInt64(length) } ?? false, "offset within the data")
        }
    }
}
