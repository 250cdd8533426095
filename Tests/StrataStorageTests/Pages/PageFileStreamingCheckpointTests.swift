import StrataStorage
import StrataSupport
import StrataTestSupport
import Testing

/// `writeCheckpoint(streaming:)`: a checkpoint whose pages come in batches as they are made.
@Suite("Page file: checkpoints written in batches")
struct PageFileStreamingCheckpointTests {
    /// The pages `numbers` with their test payloads for `generation`.
    private func pages(_ numbers: [UInt64], of file: PageFile, generation: UInt64) -> [PageFile.PageWrite] {
        numbers.map { PageFile.PageWrite(number: $0, kind: .treeLeaf,
                                         payload: pagePayload(number: $0, generation: generation,
                                                              capacity: file.payloadCapacity)) }
    }

    @Test("pages given in several batches are all written; the header names the fields the producer returned")
    func batchesLand() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            let file = try PageFile.create(path: path, pageSize: 4096, storeID: 1)
            let header = try file.writeCheckpoint { write in
                try write(pages([5, 2], of: file, generation: 1))
                try write(pages([9], of: file, generation: 1))
                try write([])
                try write(pages([3, 4], of: file, generation: 1))
                return .init(logVersion: 7, firstLogSegment: 2, pageCount: 12, roots: [1, 2, 3])
            }
            #expect(header.generation == 1 && header.checkpoint.pageCount == 12 && header.checkpoint.roots == [1, 2, 3])
            let reopened = try PageFile.open(path: path)
            #expect(reopened.header.checkpoint.logVersion == 7)
            for number: UInt64 in [2, 3, 4, 5, 9] { try reopened.expectPage(number, writtenBy: 1) }
        }
    }

    @Test("a page given twice, past the page count, or a producer that throws leaves the previous header, unpoisoned")
    func refusals() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            let file = try PageFile.create(path: path, pageSize: 4096, storeID: 1)
            try file.checkpoint(pages: [2])
            struct Stop: Error {}
            _ = try expectError(.invalidInput) {
                try file.writeCheckpoint { write in
                    try write(pages([3], of: file, generation: 2))
                    try write(pages([3], of: file, generation: 2))
                    return .init(logVersion: 2, firstLogSegment: 2, pageCount: 4)
                }
            }
            _ = try expectError(.invalidInput) {
                try file.writeCheckpoint { write in
                    try write(pages([3, 6], of: file, generation: 2))
                    return .init(logVersion: 2, firstLogSegment: 2, pageCount: 4)
                }
            }
            #expect(throws: Stop.self) {
                try file.writeCheckpoint { write in
                    try write(pages([3], of: file, generation: 2))
                    throw Stop()
                }
            }
            #expect(file.header.generation == 1)
            #expect(try PageFile.open(path: path).header.generation == 1)
            // Not poisoned: the next checkpoint writes (the same page numbers again) and reads back.
            try file.checkpoint(pages: [3, 6])
            let reopened = try PageFile.open(path: path)
            #expect(reopened.header.generation == 2)
            try reopened.expectPage(2, writtenBy: 1)
            try reopened.expectPage(3, writtenBy: 2)
            try reopened.expectPage(6, writtenBy: 2)
        }
    }
}
