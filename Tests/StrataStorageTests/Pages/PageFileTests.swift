@testable import StrataStorage
import StrataSupport
import Testing

@Suite("Page file")
struct PageFileTests {
    @Test("checkpoints read back before and after reopening, at every page size; generations alternate slots",
          arguments: [4096, 16384, 65536])
    func roundTrip(pageSize: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            let file = try PageFile.create(path: path, pageSize: pageSize, storeID: 0xABCD)
            #expect(file.header.generation == 0 && file.header.checkpoint.pageCount == 2)
            try file.checkpoint(pages: [2, 3, 4])
            try file.checkpoint(pages: [5, 6])
            let third = try file.checkpoint(pages: [7], pageCount: 12, roots: Array(repeating: 0x5C, count: 1024))
            #expect(third.generation == 3 && third.slot == 1)
            for (pages, generation) in [([2, 3, 4], 1), ([5, 6], 2), ([7], 3)] as [([UInt64], UInt64)] {
                for page in pages { try file.expectPage(page, writtenBy: generation) }
            }
            #expect(try fileSize(path) == UInt64(12 * pageSize))

            let reopened = try PageFile.open(path: path)
            #expect(reopened.header == third)
            #expect(reopened.pageSize == pageSize && reopened.header.storeID == 0xABCD)
            #expect(reopened.header.checkpoint == .init(logVersion: 30, firstLogSegment: 3, pageCount: 12,
                                                       freeListRoot: 103, roots: Array(repeating: 0x5C, count: 1024)))
            try reopened.expectPage(2, writtenBy: 1)
            try reopened.expectPage(6, writtenBy: 2)
            try reopened.expectPage(7, writtenBy: 3)

            // Generation g is in slot g % 2: slot 0 still holds generation 2, slot 1 generation 3.
            let bytes = try readFile(path)
            for (slot, generation) in [(0, 2), (1, 3)] {
                let page = try PageFrame.decode(Array(bytes[slot * pageSize..<(slot + 1) * pageSize]),
                                                number: UInt64(slot), pageSize: pageSize, path: path)
                #expect(page.kind == .headerSlot && page.generation == UInt64(generation))
            }
        }
    }

    @Test("a page rewritten by a later checkpoint reads back with its new contents, also from the cache")
    func rewrite() throws {
        try withTemporaryDirectory { directory in
            let file = try PageFile.create(path: directory.file("p"), pageSize: 4096, storeID: 1)
            try file.checkpoint(pages: [2, 3])
            try file.expectPage(2, writtenBy: 1)
            try file.checkpoint(pages: [2])
            try file.expectPage(2, writtenBy: 2)
            try PageFile.open(path: directory.file("p")).expectPage(2, writtenBy: 2)
        }
    }

    @Test("a page written at another page's offset is a corruptFile error naming the page")
    func misdirectedWrite() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            try PageFile.create(path: path, pageSize: 4096, storeID: 1).checkpoint(pages: [2, 3, 4, 5, 6])
            let raw = try POSIXFile(path: path, mode: .readWrite)
            try raw.write(try raw.read(count: 4096, at: 5 * 4096), at: 6 * 4096)
            let file = try PageFile.open(path: path)
            try file.expectPage(5, writtenBy: 1)
            let error = try expectCorrupt { _ = try file.read(page: 6) }
            #expect(error.message.contains("page 6 of \(path)") && error.message.contains("holds page 5"))
            #expect(error.path == path && error.offset == UInt64(6 * 4096))
        }
    }

    @Test("a file cut short of its header's page count does not open: corruptFile naming the first missing page")
    func truncatedFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            try PageFile.create(path: path, pageSize: 4096, storeID: 1).checkpoint(pages: [2, 3, 4])
            try POSIXFile(path: path, mode: .readWrite).truncate(to: 4 * 4096 + 100)
            let error = try expectCorrupt { _ = try PageFile.open(path: path) }
            #expect(error.message.contains("page 4 of \(path) is missing"))
        }
    }

    @Test("reading a header slot, a page past the page count, or a page of a later generation is a corruptFile error")
    func impossibleReads() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            let created = try PageFile.create(path: path, pageSize: 4096, storeID: 1)
            try created.checkpoint(pages: [2, 3], pageCount: 5)
            // Page 4 as a checkpoint of generation 9 (never reached by this file's header) wrote it.
            try POSIXFile(path: path, mode: .readWrite).write(
                PageFrame.encode(kind: .treeLeaf, number: 4, generation: 9, payload: [1], pageSize: 4096), at: 4 * 4096)
            let file = try PageFile.open(path: path)
            for number: UInt64 in [0, 1, 5, .max] {
                #expect(try expectCorrupt { _ = try file.read(page: number) }.message.contains("page \(number) of"))
            }
            #expect(try expectCorrupt { _ = try file.read(page: 4) }.message.contains("generation 9"))
        }
    }

    @Test("invalid checkpoint input is refused before anything is written, and the file stays usable")
    func invalidInput() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            let file = try PageFile.create(path: path, pageSize: 4096, storeID: 1)
            let fields = PageFileHeader.CheckpointFields(logVersion: 1, firstLogSegment: 1, pageCount: 4)
            let cases: [([PageFile.PageWrite], PageFileHeader.CheckpointFields)] = [
                ([.init(number: 1, kind: .treeLeaf, payload: [])], fields),
                ([.init(number: 4, kind: .treeLeaf, payload: [])], fields),
                ([.init(number: 2, kind: .treeLeaf, payload: []), .init(number: 2, kind: .treeLeaf, payload: [])], fields),
                ([.init(number: 2, kind: .headerSlot, payload: [])], fields),
                ([.init(number: 2, kind: .treeLeaf, payload: Array(repeating: 0, count: 4096 - 31))], fields),
                ([], .init(logVersion: 1, firstLogSegment: 1, pageCount: 4, roots: Array(repeating: 0, count: 1025))),
                ([], .init(logVersion: 1, firstLogSegment: 1, pageCount: 1)),
            ]
            let before = try readFile(path)
            for (pages, fields) in cases {
                _ = try expectError(.invalidInput) { try file.writeCheckpoint(pages, fields: fields) }
            }
            #expect(try readFile(path) == before)
            try file.checkpoint(pages: [2])
            try file.expectPage(2, writtenBy: 1)
        }
    }

    @Test("create refuses a bad page size or an existing file; a read-only file refuses checkpoints")
    func createAndReadOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            for size in [0, 1024, 5000, 131_072] {
                _ = try expectError(.invalidInput) { _ = try PageFile.create(path: path, pageSize: size, storeID: 1) }
            }
            try PageFile.create(path: path, storeID: 1).checkpoint(pages: [2])
            _ = try expectError(.invalidInput) { _ = try PageFile.create(path: path, storeID: 1) }
            let readOnly = try PageFile.open(path: path, options: .init(readOnly: true))
            try readOnly.expectPage(2, writtenBy: 1)
            _ = try expectError(.readOnly) { try readOnly.checkpoint(pages: [3]) }
            _ = try expectError(.fileNotFound) { _ = try PageFile.open(path: directory.file("missing")) }
        }
    }

    @Test("pages pass through the transform: disk bytes differ from the image, read back, and need the same transform")
    func transformSeam() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            let options = PageFile.Options(transform: XorPageTransform())
            let file = try PageFile.create(path: path, pageSize: 4096, storeID: 1, options: options)
            #expect(file.payloadCapacity == 4096 - 32 - 16)
            try file.checkpoint(pages: [2, 3])
            let disk = try POSIXFile(path: path, mode: .readOnly).read(count: 4096, at: 2 * 4096)
            #expect(disk != PageFrame.encode(kind: .treeLeaf, number: 2, generation: 1,
                                             payload: pagePayload(number: 2, generation: 1, capacity: file.payloadCapacity),
                                             pageSize: 4096))
            #expect(disk.suffix(16).allSatisfy { $0 == 0xEE })
            try PageFile.open(path: path, options: options).expectPage(3, writtenBy: 1)
            let error = try expectError(.invalidFileFormat) { _ = try PageFile.open(path: path) }
            #expect(error.message.contains("page transform 7"))
        }
    }

    @Test("a header whose generation cannot grow refuses a checkpoint with corruptFile instead of trapping")
    func exhaustedGeneration() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            let header = PageFileHeader(generation: .max, pageSize: 4096, storeID: 1,
                                        checkpoint: .init(logVersion: 0, firstLogSegment: 0, pageCount: 2), transformID: 0)
            try writeFile(path, [UInt8](repeating: 0, count: 4096) + header.encodeSlot())  // an odd generation: slot 1
            let file = try PageFile.open(path: path)
            #expect(file.header.generation == .max)
            _ = try expectCorrupt {
                try file.writeCheckpoint([.init(number: 2, kind: .treeLeaf, payload: [1])],
                                         fields: .init(logVersion: 1, firstLogSegment: 1, pageCount: 3))
            }
        }
    }

    @Test("an image of 40 pages reads back whole; a run that claims more pages than the image stops at the first wrong page")
    func longImages() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("images")
            let file = try PageFile.create(path: path, pageSize: 4096, storeID: 1)
            let image = (0..<(40 * file.payloadCapacity - 7)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let extent = PageExtent(first: 2, count: 40)
            try file.writeCheckpoint(file.layout.pageWrites(for: image, kind: .treeLeaf, at: extent),
                                     fields: .init(logVersion: 1, firstLogSegment: 1, pageCount: 100))
            #expect(try file.readImage(extent, kind: .treeLeaf) == image)
            // Pages 42 ..< 100 are not written: a reference claiming 98 pages fails at page 42.
            let error = try expectCorrupt { _ = try file.readImage(PageExtent(first: 2, count: 98), kind: .treeLeaf) }
            // Compared unwrapped: an optional UInt64 in #expect trips AddressSanitizer in the
            // runtime's AnyHashable conversion on this toolchain.
            let offset = try #require(error.offset)
            #expect(offset == 42 * 4096)
            // Two leaf images side by side: a run over both fails at the second one's first page.
            let leaf = PageExtent(first: 42, count: 1)
            try file.writeCheckpoint(file.layout.pageWrites(for: [1, 2, 3], kind: .treeLeaf, at: leaf),
                                     fields: .init(logVersion: 2, firstLogSegment: 1, pageCount: 100))
            let second = try expectCorrupt { _ = try file.readImage(PageExtent(first: 41, count: 50), kind: .overflow) }
            let secondOffset = try #require(second.offset)
            #expect(secondOffset == 42 * 4096)
        }
    }
}
