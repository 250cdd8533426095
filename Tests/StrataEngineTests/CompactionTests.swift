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
}
