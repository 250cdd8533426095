import Foundation
import StrataStorage
import StrataSupport
import Testing
@testable import StrataEngine

/// Counter: 0 id (int, primary key), 1 n (int).
private let counterSchema = TableSchema(name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("n", .int)],
                                        primaryKey: "id")

/// Creates the counter table holding ids 1...count (n = 0) in one commit; returns its key.
private func makeCounters(_ count: Int, in store: Store) throws -> TableKey {
    try store.write { tx in
        let table = try tx.createTable(counterSchema)
        for id in 1...count { _ = try tx.insertObject(into: table, values: [.int(Int64(id)), .int(0)]) }
        return table
    }
}

/// Sets n of the counter whose object key is `object`.
private func bump(_ object: Int64, to value: Int64, table: TableKey, in store: Store) throws {
    try store.write { tx in
        try tx.setValue(.int(value), at: PropertyPath(table: table, object: ObjectKey(object), column: 1))
    }
}

/// The pages of the closed store's page file at `path` that its last checkpoint wrote (they carry
/// its generation), and the file's page count.
private func lastCheckpointPages(_ path: String) throws -> (written: [PageKind], pageCount: UInt64) {
    let file = try PageFile.open(path: path, options: PageFile.Options(cacheBytes: 0, readOnly: true))
    return (lastCheckpointPages(of: file), file.header.checkpoint.pageCount)
}

/// The kinds of the pages of `file` that its last checkpoint wrote (they carry its generation).
private func lastCheckpointPages(of file: PageFile) -> [PageKind] {
    let header = file.header
    return (2..<header.checkpoint.pageCount).compactMap { number in
        guard let page = try? file.read(page: number), page.generation == header.generation else { return nil }
        return page.kind
    }
}

/// A checkpoint writes the tree nodes that changed since the previous one, the catalog and the
/// free list, into pages the previous checkpoint does not reach; pages it replaces are reused.
@Suite("Paged checkpoints")
struct PagedCheckpointTests {
    @Test("a checkpoint after one changed row writes its delta, not its leaf; a leaf changed throughout is written whole with the branch above it")
    func incrementalCheckpoint() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("incremental.strata")
            try withStore(.file(path)) { store in
                let table = try makeCounters(3000, in: store)
                try store.checkpoint()
                try bump(1500, to: 7, table: table, in: store)
                try store.checkpoint()
            }
            // 3,000 rows: 47 leaves under one root branch. The changed leaf keeps its page and the
            // branch its image: a delta page, the delta directory, the catalog and the free list.
            let (written, _) = try lastCheckpointPages(path)
            #expect(written.sorted { $0.rawValue < $1.rawValue } == [.freeList, .catalog, .leafDeltas, .deltaDirectory])
            try withStore(.file(path)) { store in
                let table = try #require(store.currentSnapshot.table(named: "Counter"))
                #expect(table.count == 3000)
                #expect(table.value(of: ObjectKey(1500), column: 1) == .int(7))
                #expect(table.value(of: ObjectKey(1499), column: 1) == .int(0))
                // Every row of the first leaf: its delta would take more than a quarter of its
                // image, so the leaf is written whole, and the branch above it.
                for object in Int64(0)..<64 { try bump(object, to: 9, table: table.key, in: store) }
                try store.checkpoint()
            }
            let (rewritten, _) = try lastCheckpointPages(path)
            #expect(rewritten.contains(.treeLeaf) && rewritten.contains(.treeBranch), "\(rewritten)")
            try withStore(.file(path)) { store in
                #expect(try store.verifyFile() > 0)
                let table = try #require(store.currentSnapshot.table(named: "Counter"))
                #expect(table.value(of: ObjectKey(1500), column: 1) == .int(7))
                for object in Int64(0)..<64 { #expect(table.value(of: ObjectKey(object), column: 1) == .int(9)) }
                #expect(table.value(of: ObjectKey(64), column: 1) == .int(0))
            }
        }
    }

    @Test("under repeated updates and checkpoints the file stops growing: replaced pages are reused")
    func replacedPagesAreReused() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("paged checkpoints, page reuse: seed \(seed) (STRATA_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        try withTemporaryDirectory { directory in
            let path = directory.file("reuse.strata")
            var pageCounts: [UInt64] = []
            var expected: [Int64: Int64] = [:]
            try withStore(.file(path)) { store in
                let table = try makeCounters(5000, in: store)
                for round in 1...40 {
                    for _ in 0..<20 {
                        let object = Int64(random.next() % 5000)
                        try bump(object, to: Int64(round), table: table, in: store)
                        expected[object] = Int64(round)
                    }
                    try store.checkpoint()
                    pageCounts.append(try #require(store.files?.pages).file.header.checkpoint.pageCount)
                }
            }
            // The pages a checkpoint frees are reused from the one after it on, and a leaf-deltas
            // page is freed once none of its deltas is its leaf's latest (or they moved). Leaves
            // go from deltas to whole writes at different rounds, so the count creeps up for a
            // while before it stays put (124 pages from about round 50 on in a 120-round run);
            // without reuse every round would add at least four pages (a delta page, the
            // directory, the catalog and the free list), 120 over these 30 rounds.
            #expect(pageCounts[39] <= pageCounts[9] + 15, "page counts: \(pageCounts)")
            try withStore(.file(path)) { store in
                let table = try #require(store.currentSnapshot.table(named: "Counter"))
                for object in Int64(0)..<5000 {
                    #expect(table.value(of: ObjectKey(object), column: 1) == .int(expected[object] ?? 0))
                }
            }
        }
    }

    @Test("a leaf gaining one changed row per checkpoint is written as deltas, then whole once its delta costs more than rewriting it")
    func deltaThenWholeLeaf() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("threshold.strata")
            let schema = TableSchema(name: "Note", columns: [ColumnSchema("id", .int), ColumnSchema("n", .int),
                                                            ColumnSchema("text", .string)], primaryKey: "id")
            var kinds: [[PageKind]] = []
            try withStore(.file(path)) { store in
                let table = try store.write { tx in
                    let table = try tx.createTable(schema)
                    for id in Int64(0)..<640 {
                        _ = try tx.insertObject(into: table, values: [.int(id), .int(0), .string(String(repeating: "t", count: 100))])
                    }
                    return table
                }
                try store.checkpoint()
                // Rows 0..<64 are the first leaf (about 7.5 KB): one more of them changed each time.
                for round in Int64(0)..<64 {
                    try store.write { tx in
                        try tx.setValue(.int(round + 1), at: PropertyPath(table: table, object: ObjectKey(round), column: 1))
                    }
                    try store.checkpoint()
                    kinds.append(lastCheckpointPages(of: try #require(store.files?.pages).file))
                }
            }
            // About 8 bytes a round: written whole once the delta passes √(2 · 7.5 KB · 8 B), about
            // 350 bytes (a quarter of the image, the bound without the balance, takes past the 64
            // rounds).
            let firstWhole = try #require(kinds.firstIndex { $0.contains(.treeLeaf) }, "never written whole")
            #expect((25...60).contains(firstWhole), "first written whole at round \(firstWhole)")
            #expect(kinds[..<firstWhole].allSatisfy { $0.contains(.leafDeltas) && !$0.contains(.treeLeaf) })
            #expect(kinds[firstWhole + 1].contains(.leafDeltas), "deltas again after the whole write")
            try withStore(.file(path)) { store in
                let table = try #require(store.currentSnapshot.table(named: "Note"))
                for id in Int64(0)..<64 { #expect(table.value(of: ObjectKey(id), column: 1) == .int(id + 1)) }
            }
        }
    }

    @Test("removing a table frees all its pages for the next checkpoints")
    func removedTableFreesItsPages() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("removed.strata")
            var before: UInt64 = 0
            try withStore(.file(path)) { store in
                let table = try makeCounters(3000, in: store)
                try store.checkpoint()
                before = try #require(store.files?.pages).file.header.checkpoint.pageCount
                try store.write { tx in try tx.removeTable(table) }
                try store.checkpoint()
                // The counters again: they fit in the pages the removed table left.
                _ = try makeCounters(3000, in: store)
                try store.checkpoint()
                try store.checkpoint()
                #expect(try #require(store.files?.pages).file.header.checkpoint.pageCount <= before + 2)
            }
            try withStore(.file(path)) { store in #expect(store.currentSnapshot.table(named: "Counter")?.count == 3000) }
        }
    }

    @Test("verifying a tree checks its values as a read does: a row that does not fit is a typed error naming the page")
    func verifyChecksValues() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("values.strata")
            try withStore(.file(path)) { store in
                _ = try makeCounters(100, in: store)
                try store.checkpoint()
            }
            let file = try PageFile.open(path: path, options: PageFile.Options(cacheBytes: 0, readOnly: true))
            let roots = try StoreCatalog.Roots.decode(file.header.checkpoint.roots, path: path)
            let catalog = try StoreCatalog.decode(file.readImage(roots.catalog, kind: .catalog), path: path,
                                                  at: roots.catalog, pageSize: file.pageSize)
            let rows = try #require(catalog.tables.first).rows
            var reached = Set<UInt64>()
            try SortedTree<ObjectKey, Row>.verifyPages(rows, RowEntryCoding.self, in: file, reached: &reached) {
                $0.values.count == 2
            }
            reached = []
            let error = expectStrataError(.corruptFile) {
                try SortedTree<ObjectKey, Row>.verifyPages(rows, RowEntryCoding.self, in: file, reached: &reached) {
                    $0.values.count == 3
                }
            }
            #expect(error?.path == path)
            // 100 rows are two leaves under a root branch: the first leaf is the page named.
            let root = rows.extent.first * UInt64(file.pageSize)
            #expect(error.flatMap(\.offset).map { $0 % UInt64(file.pageSize) == 0 && $0 != root } == true)
            #expect(error?.message.contains("does not fit its tree") == true)
        }
    }

    @Test("a damaged tree page: verifyFile throws corruptFile naming the file and the page; a read of it stops the process")
    func damagedPage() async throws {
        let directory = try TemporaryDirectory.create(prefix: "strata-damaged")
        defer { directory.remove() }
        let path = directory.file("damaged.strata")
        try withStore(.file(path)) { store in
            _ = try makeCounters(3000, in: store)
            try store.checkpoint()
            #expect(try store.verifyFile() > 40)
        }
        let file = try PageFile.open(path: path, options: PageFile.Options(cacheBytes: 0, readOnly: true))
        let leaf = try #require((2..<file.header.checkpoint.pageCount).first {
            (try? file.read(page: $0))?.kind == .treeLeaf
        })
        let pageSize = UInt64(file.pageSize)
        let handle = try POSIXFile(path: path, mode: .readWrite)
        var byte = try handle.read(count: 1, at: leaf * pageSize + 100)
        byte[0] ^= 0x10
        try handle.write(byte, at: leaf * pageSize + 100)
        // Opening reads the header and the catalog only: it succeeds.
        try withStore(.file(path)) { store in
            let error = expectStrataError(.corruptFile) { try store.verifyFile() }
            #expect(error?.path == path)
            #expect(error?.offset == leaf * pageSize)
            #expect(error?.message.contains("page \(leaf)") == true)
        }
        // The child process finds the store through its environment (an exit test captures nothing).
        setenv("STRATA_TEST_DAMAGED_STORE", path, 1)
        await #expect(processExitsWith: .failure) {
            let store = try Store.open(.file(ProcessInfo.processInfo.environment["STRATA_TEST_DAMAGED_STORE"] ?? ""))
            var values = 0
            store.currentSnapshot.table(named: "Counter")?.forEachObject { _, _ in values += 1 }
            print(values)
        }
    }
}
