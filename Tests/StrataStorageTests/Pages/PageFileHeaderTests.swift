@testable import StrataStorage
import StrataSupport
import Testing

@Suite("Page file header slots")
struct PageFileHeaderTests {
    /// A 4 KiB page file at generation 2 (slot 0) over generation 1 (slot 1), as bytes.
    static func twoGenerations(in directory: TemporaryDirectory) throws -> (path: String, bytes: [UInt8]) {
        let path = directory.file("store.pages")
        let file = try PageFile.create(path: path, pageSize: 4096, storeID: 0x51)
        try file.checkpoint(pages: [2])
        try file.checkpoint(pages: [3], roots: Array(repeating: 9, count: 40))
        return (path, try readFile(path))
    }

    static func current(_ bytes: [UInt8], path: String = "/f") throws -> PageFileHeader {
        try PageFileHeader.current(in: Array(bytes.prefix(PageFileHeader.slotsSpan)), fileSize: UInt64(bytes.count),
                                   path: path)
    }

    @Test("a flipped bit anywhere in one header slot falls back to the other slot's generation")
    func bitFlipsFallBack() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("header slot bit flips: STRATA_SEED=\(seed)")
        var random = SeededRandom(seed: seed)
        try withTemporaryDirectory { directory in
            let (_, bytes) = try Self.twoGenerations(in: directory)
            #expect(try Self.current(bytes).generation == 2)
            for (slot, fallback) in [(0, UInt64(1)), (1, 2)] {
                let fieldEnd = PageFrame.headerSize + PageFileHeader.fieldsSize + 40
                let positions = Array(0..<fieldEnd) + (0..<48).map { _ in fieldEnd + Int(random.next() % UInt64(4096 - fieldEnd)) }
                for position in positions {
                    var damaged = bytes
                    damaged[slot * 4096 + position] ^= UInt8(1) << (random.next() % 8)
                    let header = try Self.current(damaged)
                    #expect(header.generation == fallback, "slot \(slot), byte \(position)")
                }
            }
        }
    }

    @Test("both slots damaged is corruptFile naming page 0; no magic at all is invalidFileFormat")
    func neitherSlot() throws {
        try withTemporaryDirectory { directory in
            let (path, bytes) = try Self.twoGenerations(in: directory)
            var damaged = bytes
            damaged[100] ^= 1
            damaged[4096 + 100] ^= 1
            let error = try expectCorrupt { _ = try Self.current(damaged, path: path) }
            #expect(error.message.contains("page 0 of \(path)") && error.offset == 0)

            for notPages in [[], [UInt8](repeating: 0, count: 20000), Array("STRATACK not a page file".utf8),
                             (0..<9000).map { UInt8(truncatingIfNeeded: $0 &* 31) }] {
                let error = try expectError(.invalidFileFormat) { _ = try Self.current(notPages, path: path) }
                #expect(error.message.contains("not a Strata page file"))
            }
            try writeFile(path, Array(repeating: 0x42, count: 10000))
            _ = try expectError(.invalidFileFormat) { _ = try PageFile.open(path: path) }
        }
    }

    @Test("a valid slot of an unknown format version is invalidFileFormat naming the version")
    func unknownVersion() throws {
        try withTemporaryDirectory { directory in
            let (path, bytes) = try Self.twoGenerations(in: directory)
            var future = bytes
            future.replaceSubrange(40..<44, with: [3, 0, 0, 0])
            future.replaceSubrange(0..<4096, with: resealed(Array(future[0..<4096])))
            try writeFile(path, future)
            let error = try expectError(.invalidFileFormat) { _ = try PageFile.open(path: path) }
            #expect(error.message.contains("format version 3") && error.message.contains("reads format versions 1 to 2"))
        }
    }

    @Test("a slot naming an invalid page size is skipped; when it is the only slot the file does not open")
    func invalidPageSize() throws {
        try withTemporaryDirectory { directory in
            let (path, bytes) = try Self.twoGenerations(in: directory)
            var damaged = bytes
            damaged.replaceSubrange(44..<48, with: [0x00, 0x0C, 0, 0])  // 3072
            damaged.replaceSubrange(0..<4096, with: resealed(Array(damaged[0..<4096])))
            #expect(try Self.current(damaged).generation == 1)
            damaged.replaceSubrange(4096..<8192, with: repeatElement(0, count: 4096))
            let error = try expectCorrupt { _ = try Self.current(damaged, path: path) }
            #expect(error.message.contains("page size 3072"))
        }
    }

    @Test("a page file of every page size opens from its slots alone", arguments: [4096, 8192, 16384, 32768, 65536])
    func everyPageSize(pageSize: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            let file = try PageFile.create(path: path, pageSize: pageSize, storeID: 3)
            try file.checkpoint(pages: [2])
            #expect(try PageFile.open(path: path).header == file.header)
            // Slot 1 damaged: generation 0 in slot 0 remains.
            let raw = try POSIXFile(path: path, mode: .readWrite)
            try raw.write([0xFF], at: UInt64(pageSize + 50))
            #expect(try PageFile.open(path: path).header.generation == 0)
        }
    }
}
