import Foundation
import StrataStorage
import Testing
@testable import StrataEngine

/// `Store.compact()` and `Store.writeCopy(of:toPath:)`: a new page file holding one version in as
/// few pages as it needs.
@Suite("Compaction and copies")
struct CompactionTests {
    /// A store at `path` with items 1...3000, checkpointed, then items above 100 erased and
    /// checkpointed twice (so their pages are free).
    private func makeStoreWithFreePages(_ path: String) throws {
        try withStore(.file(path)) { store in
            try insertItems(1...3000, into: store)
            try store.checkpoint()
            let table = try #require(store.currentSnapshot.tableKey(named: "Item"))
            try store.write { tx in
                for object in tx.snapshot.table(table)!.objectKeys.dropFirst(100) { try tx.eraseObject(object, in: table) }
            }
            try store.checkpoint()
            try store.checkpoint()
        }
    }

    @Test("compact rewrites the page file without free pages; the store keeps every row, takes writes, checkpoints and reopens")
    func compact() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("compact.strata")
            try makeStoreWithFreePages(path)
            try withStore(.file(path)) { store in
                let before = try #require(store.fileUsage)
                #expect(before.used < before.total)
                try store.compact()
                let after = try #require(store.fileUsage)
                #expect(after.used == after.total)
                #expect(after.total < before.total)
                #expect(itemCount(store) == 100)
                try insertItems(3001...3010, into: store)
                try store.checkpoint()
                #expect(try CommitLog.segmentPaths(storePath: path).count == 1)
            }
            try withStore(.file(path)) { store in
                #expect(itemCount(store) == 110)
                let table = try #require(store.currentSnapshot.table(named: "Item"))
                #expect(table.object(forPrimaryKey: .int(3005)) != nil)
                #expect(table.object(forPrimaryKey: .int(2000)) == nil)
            }
        }
    }

    @Test("writeCopy writes a store of its own holding the snapshot; an existing destination is refused")
    func writeCopy() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("source.strata")
            let copy = directory.file("copy.strata")
            try withStore(.file(path)) { store in
                try insertItems(1...500, into: store)
                try Store.writeCopy(of: store.currentSnapshot, toPath: copy)
                try insertItems(501...510, into: store)
                let error = expectStrataError(.fileExists) { try Store.writeCopy(of: store.currentSnapshot, toPath: copy) }
                #expect(error?.path == copy)
            }
            try withStore(.file(copy)) { store in
                #expect(itemCount(store) == 500)
                #expect(try #require(store.fileUsage).used == (try #require(store.fileUsage)).total)
                try insertItems(1000...1000, into: store)
            }
            try withStore(.file(copy)) { store in #expect(itemCount(store) == 501) }
            try withStore(.file(path)) { store in #expect(itemCount(store) == 510) }
            let source = try PageFile.open(path: path).header.storeID
            #expect(try PageFile.open(path: copy).header.storeID != source)
        }
    }

    @Test("a compaction whose new file cannot be written leaves the store as it was, writable")
    func failedCompaction() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("failed.strata")
            try makeStoreWithFreePages(path)
            try withStore(.file(path)) { store in
                StorageFaults.shared.inject(.fail(errno: ENOSPC), on: .write, matching: path + ".tmp$", count: 1_000)
                let error = expectStrataError(.fileAccess) { try store.compact() }
                StorageFaults.shared.removeRules(matching: path + ".tmp$")
                #expect(error?.errno == ENOSPC)
                #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
                try insertItems(3001...3001, into: store)
                try store.checkpoint()
            }
            try withStore(.file(path)) { store in #expect(itemCount(store) == 101) }
        }
    }

    /// A store of 5,000 rows of 2 KB each (about 10 MB of pages: more than one batch of a new
    /// file's pages, see `CheckpointPages.batchBytes`).
    private func makeLargeStore(_ path: String) throws -> TableKey {
        let schema = TableSchema(name: "Blob", columns: [ColumnSchema("id", .int), ColumnSchema("text", .string)],
                                 primaryKey: "id")
        return try withStore(.file(path)) { store in
            try store.write { tx in
                let table = try tx.createTable(schema)
                for id in 0..<5_000 {
                    let text = String(repeating: Character(UnicodeScalar(UInt8(97 + id % 26))), count: 2_000)
                    _ = try tx.insertObject(into: table, values: [.int(Int64(id)), .string(text)])
                }
                return table
            }
        }
    }

    @Test("a compaction larger than one batch of pages writes them as it goes; the new file holds every row")
    func compactionInBatches() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("large.strata")
            let table = try makeLargeStore(path)
            try withStore(.file(path)) { store in
                try store.compact()
                #expect(try store.verifyFile() > 600)
            }
            try withStore(.file(path)) { store in
                let rows = try #require(store.currentSnapshot.table(table))
                #expect(rows.count == 5_000)
                for id in stride(from: 0, to: 5_000, by: 97) {
                    let object = try #require(rows.object(forPrimaryKey: .int(Int64(id))))
                    let text = String(repeating: Character(UnicodeScalar(UInt8(97 + id % 26))), count: 2_000)
                    #expect(rows.value(of: object, column: 1) == .string(text))
                }
            }
        }
    }

    @Test("a disk that fills after the first batch of a compaction's pages leaves the store as it was, writable")
    func compactionFailingMidway() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("large.strata")
            let table = try makeLargeStore(path)
            try withStore(.file(path)) { store in
                // A batch is 8 MB: about 520 pages of 16 KiB, written one write each.
                StorageFaults.shared.inject(.fail(errno: ENOSPC), on: .write, matching: path + ".tmp$", skipping: 560,
                                            count: 1_000)
                let error = expectStrataError(.fileAccess) { try store.compact() }
                StorageFaults.shared.removeRules(matching: path + ".tmp$")
                #expect(error?.errno == ENOSPC)
                #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
                try store.write { tx in
                    _ = try tx.insertObject(into: table, values: [.int(9_999), .string("after")])
                }
                try store.checkpoint()
            }
            try withStore(.file(path)) { store in #expect(store.currentSnapshot.table(table)?.count == 5_001) }
        }
    }

    @Test("a store with 16 KiB pages (written before 4 KiB pages) reads, writes and checkpoints; compaction makes it 4 KiB")
    func sixteenKiBPages() throws {
        try withTemporaryDirectory { directory in
            let source = directory.file("source.strata")
            let old = directory.file("old.strata")
            try withStore(.file(source)) { store in
                try insertItems(1...2000, into: store)
                try StorePages.writeCopy(of: store.currentSnapshot, toPath: old, pageSize: 16_384)
            }
            #expect(try PageFile.open(path: old).header.pageSize == 16_384)
            try withStore(.file(old)) { store in
                #expect(itemCount(store) == 2000)
                try insertItems(2001...2100, into: store)
                try store.checkpoint()
                #expect(try store.verifyFile() > 0)
            }
            #expect(try PageFile.open(path: old).header.pageSize == 16_384)
            try withStore(.file(old)) { store in
                #expect(itemCount(store) == 2100)
                try store.compact()
            }
            #expect(try PageFile.open(path: old).header.pageSize == StorePages.pageSize)
            try withStore(.file(old)) { store in
                #expect(itemCount(store) == 2100)
                let pagesInUse = try store.verifyFile()
                #expect(pagesInUse > 0)
            }
        }
    }
}
