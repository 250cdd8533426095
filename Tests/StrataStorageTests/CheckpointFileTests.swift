import Testing
@testable import StrataStorage
import StrataSupport

/// A payload that is not all alike, so a wrong slice is noticed.
private let samplePayloadBytes: [UInt8] = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 11) }

@Suite("CheckpointFile")
struct CheckpointFileTests {
    @Test("A written checkpoint reads back with its version and payload, in the documented layout")
    func roundTrip() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            try CheckpointFile.write(
                path: path, header: sampleHeader(0x0102_0304_0506_0708), payload: samplePayloadBytes)
            let contents = try #require(try CheckpointFile.read(path: path))
            #expect(contents.version == 0x0102_0304_0506_0708)
            #expect(contents.payload == samplePayloadBytes)

            let bytes = try readFile(path)
            #expect(bytes.count == CheckpointFile.headerSize + samplePayloadBytes.count)
            #expect(Array(bytes[0..<8]) == Array("STRATACK".utf8))
            #expect(Array(bytes[8..<12]) == [2, 0, 0, 0])
            #expect(Array(bytes[16..<24]) == [8, 7, 6, 5, 4, 3, 2, 1])
            #expect(Array(bytes[24..<32]) == [0x77, 0, 0, 0, 0, 0, 0, 0])
            #expect(Array(bytes[32..<40]) == [3, 0, 0, 0, 0, 0, 0, 0])
            #expect(Array(bytes[40..<48]) == [200, 0, 0, 0, 0, 0, 0, 0])
            #expect(Array(bytes[56...]) == samplePayloadBytes)
            #expect(contents.header == sampleHeader(0x0102_0304_0506_0708))
            #expect(!FileSystem.exists(path + ".tmp"), "the temporary file was renamed")
        }
    }

    @Test("An empty payload round-trips")
    func emptyPayload() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            try CheckpointFile.write(path: path, header: sampleHeader(7), payload: [])
            let contents = try #require(try CheckpointFile.read(path: path))
            #expect(contents.version == 7)
            #expect(contents.payload.isEmpty)
            #expect(try fileSize(path) == UInt64(CheckpointFile.headerSize))
        }
    }

    @Test("Writing again replaces the checkpoint")
    func replace() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            try CheckpointFile.write(path: path, header: sampleHeader(1), payload: samplePayloadBytes)
            try CheckpointFile.write(path: path, header: sampleHeader(2), payload: [42, 43])
            let contents = try #require(try CheckpointFile.read(path: path))
            #expect(contents.version == 2)
            #expect(contents.payload == [42, 43])
        }
    }

    @Test("Reading a checkpoint that does not exist returns nil")
    func missing() throws {
        try withTemporaryDirectory { directory in
            let contents = try CheckpointFile.read(path: directory.file("none.checkpoint"))
            #expect(contents == nil)
        }
    }

    @Test("A leftover .tmp file is ignored by read, and the next write replaces it")
    func leftoverTemporary() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            // A complete checkpoint that was never renamed into place does not count.
            try CheckpointFile.write(path: directory.file("other"), header: sampleHeader(9), payload: [9])
            try writeFile(path + ".tmp", try readFile(directory.file("other")))
            let beforeAnyCheckpoint = try CheckpointFile.read(path: path)
            #expect(beforeAnyCheckpoint == nil)

            try CheckpointFile.write(path: path, header: sampleHeader(3), payload: samplePayloadBytes)
            try writeFile(path + ".tmp", Array("half-written garbage".utf8))
            let contents = try #require(try CheckpointFile.read(path: path))
            #expect(contents.version == 3)
            #expect(contents.payload == samplePayloadBytes)

            try CheckpointFile.write(path: path, header: sampleHeader(4), payload: [4])
            #expect(!FileSystem.exists(path + ".tmp"))
            #expect(try CheckpointFile.read(path: path)?.version == 4)
        }
    }

    @Test(
        "Flipping any byte: the magic gives invalidFileFormat at 0, the format invalidFileFormat at 8, the header corruptFile at 0, the payload corruptFile at 56"
    )
    func everyByteFlip() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            try CheckpointFile.write(path: path, header: sampleHeader(12), payload: samplePayloadBytes)
            let original = try readFile(path)
            for index in original.indices {
                var damaged = original
                damaged[index] ^= 1 << (index % 8)
                try writeFile(path, damaged)
                let error = #expect(throws: StrataError.self, "byte \(index)") {
                    _ = try CheckpointFile.read(path: path)
                }
                let expectedCode: StrataError.Code = index < 12 ? .invalidFileFormat : .corruptFile
                let expectedOffset: UInt64 = switch index {
                case 0..<8: 0
                case 8..<12: 8
                case 12..<CheckpointFile.headerSize: 0
                default: UInt64(CheckpointFile.headerSize)
                }
                #expect(error?.code == expectedCode, "byte \(index)")
                #expect(error?.offset == expectedOffset, "byte \(index)")
                #expect(error?.path == path, "byte \(index)")
            }
        }
    }

    @Test("A checkpoint shorter or longer than its header says throws corruptFile at the payload offset")
    func lengthMismatch() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            try CheckpointFile.write(path: path, header: sampleHeader(12), payload: samplePayloadBytes)
            let original = try readFile(path)
            for damaged in [Array(original.dropLast()), original + [0], Array(original[..<CheckpointFile.headerSize])] {
                try writeFile(path, damaged)
                let error = #expect(throws: StrataError.self, "\(damaged.count) bytes") {
                    _ = try CheckpointFile.read(path: path)
                }
                #expect(error?.code == .corruptFile, "\(damaged.count) bytes")
                #expect(error?.offset == UInt64(CheckpointFile.headerSize), "\(damaged.count) bytes")
            }
        }
    }

    @Test("A checkpoint cut inside its header throws corruptFile; one cut inside the magic, invalidFileFormat")
    func truncatedHeader() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            try CheckpointFile.write(path: path, header: sampleHeader(12), payload: samplePayloadBytes)
            let original = try readFile(path)
            for length in 0..<CheckpointFile.headerSize {
                try writeFile(path, Array(original[..<length]))
                let error = #expect(throws: StrataError.self, "\(length) bytes") {
                    _ = try CheckpointFile.read(path: path)
                }
                #expect(error?.code == (length < 8 ? .invalidFileFormat : .corruptFile), "\(length) bytes")
            }
        }
    }

    @Test("A format 1 checkpoint (an earlier Strata's, valid checksums) throws invalidFileFormat at offset 8")
    func formatOne() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            var header = ByteWriter()
            header.writeRaw(Array("STRATACK".utf8))
            header.writeFixed(UInt32(1))
            header.writeFixed(UInt32(0))
            header.writeFixed(UInt64(5))
            header.writeFixed(UInt64(1))
            header.writeFixed(CRC32C.checksum([7]))
            header.writeFixed(CRC32C.checksum(header.bytes))
            try writeFile(path, header.bytes + [7])
            let error = #expect(throws: StrataError.self) { _ = try CheckpointFile.read(path: path) }
            #expect(error?.code == .invalidFileFormat)
            #expect(error?.offset == 8)
            #expect(error?.message.contains("format 1") == true)
        }
    }
}
