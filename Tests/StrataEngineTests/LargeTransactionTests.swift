#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import StrataEngine
@testable import StrataStorage
import StrataSupport

/// A transaction larger than the spool's in-memory chunk (``InstructionSpool``): its encoded
/// instructions move to a scratch file, its log record is streamed from there, and rows created
/// in key order are packed as their leaves fill.
@Suite("Large transactions")
struct LargeTransactionTests {
    static let schema = TableSchema(
        name: "Item", columns: [ColumnSchema("id", .int), ColumnSchema("note", .string), ColumnSchema("score", .double)],
        primaryKey: "id")

    /// Object `id`'s values: a 300-byte note, so 4,000 objects encode to about 1.2 MB.
    static func item(_ id: Int64) -> [Value] {
        [.int(id), .string(String(repeating: Character(UnicodeScalar(UInt8(97 + id % 26))), count: 300)),
         .double(Double(id) / 4)]
    }

    static let count: Int64 = 4_000

    /// Every object of table `key` in `snapshot`, by primary key.
    static func items(in snapshot: Snapshot, table key: TableKey) -> [Int64: [Value]] {
        var found: [Int64: [Value]] = [:]
        snapshot.table(key)?.forEachObject { _, row in
            if case .int(let id) = row[0] { found[id] = row.values }
        }
        return found
    }

    static func expected(_ ids: some Sequence<Int64>) -> [Int64: [Value]] {
        Dictionary(uniqueKeysWithValues: ids.map { ($0, item($0)) })
    }

    /// The names in `directory`.
    static func names(in directory: TemporaryDirectory) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    @Test("a transaction past the in-memory chunk spools its instructions to a scratch file, commits one streamed record, and replays it on reopen",
          arguments: [StoreKind.fileFull, .fileNormal])
    func spooledCommitReplays(kind: StoreKind) throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            let configuration = kind.configuration(in: directory)
            let table = try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                let before = try Self.names(in: directory)
                var pin: PinnedSnapshot? = try store.pin()
                let tx = try store.beginWrite()
                var keys: [ObjectKey] = []
                for id in 1...Self.count { keys.append(try tx.insertObject(into: table, values: Self.item(id))) }
                #expect(tx.spooledBytes >= UInt64(configuration.instructionSpoolBytes), "the instructions went to a scratch file")
                #expect(try Self.names(in: directory) == before, "the scratch file has no name in the directory")
                #expect(tx.instructionCount == Int(Self.count))
                let instructions = tx.instructions
                #expect(instructions.count == Int(Self.count))
                #expect(instructions == zip(keys, 1...Self.count).map { .insertObject(table, $0, Self.item($1)) })
                let version = try tx.commit()

                let changesets = try #require(store.changesets(after: pin!.version))
                let changeset = try #require(changesets.last)
                #expect(changeset.version == version)
                #expect(changeset.summary[table].insertions.count == Int(Self.count))
                #expect(changeset.instructions == nil, "a spooled commit's changeset holds no scratch file")
                pin = nil
                #expect(Self.items(in: store.currentSnapshot, table: table) == Self.expected(1...Self.count))
                return table
            }
            try withStore(configuration) { store in
                #expect(Self.items(in: store.currentSnapshot, table: table) == Self.expected(1...Self.count))
                try store.write { tx in _ = try tx.insertObject(into: table, values: Self.item(Self.count + 1)) }
            }
            try withStore(configuration) { store in
                #expect(Self.items(in: store.currentSnapshot, table: table) == Self.expected(1...Self.count + 1))
            }
        }
    }

    @Test("an instructions scratch file that cannot be made or written leaves them in memory, and the commit is the same",
          arguments: [StorageOperation.open, .write])
    func scratchFileFailure(operation: StorageOperation) throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            defer { StorageFaults.shared.removeRules(matching: directory.name) }
            let configuration = StoreKind.fileFull.configuration(in: directory)
            let table = try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                StorageFaults.shared.inject(.fail(errno: ENOSPC), on: operation, matching: directory.name + "/(instructions scratch)",
                                            count: 1_000)
                let tx = try store.beginWrite()
                for id in 1...Self.count { _ = try tx.insertObject(into: table, values: Self.item(id)) }
                #expect(tx.spooledBytes == 0)
                try tx.commit()
                StorageFaults.shared.removeRules(matching: directory.name)
                try store.write { tx in _ = try tx.insertObject(into: table, values: Self.item(Self.count + 1)) }
                return table
            }
            try withStore(configuration) { store in
                #expect(Self.items(in: store.currentSnapshot, table: table) == Self.expected(1...Self.count + 1))
            }
        }
    }

    @Test("a cancelled spooled transaction leaves nothing in the log; the next commit follows the one before it")
    func cancelledSpooledTransaction() throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            let configuration = StoreKind.fileNormal.configuration(in: directory)
            let table = try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                try store.write { tx in _ = try tx.insertObject(into: table, values: Self.item(1)) }
                let tx = try store.beginWrite()
                for id in 2...Self.count { _ = try tx.insertObject(into: table, values: Self.item(id)) }
                #expect(tx.spooledBytes > 0)
                tx.cancel()
                try store.write { tx in _ = try tx.insertObject(into: table, values: Self.item(Self.count + 1)) }
                return table
            }
            try withStore(configuration) { store in
                #expect(Self.items(in: store.currentSnapshot, table: table) == Self.expected([1, Self.count + 1]))
            }
        }
    }

    // MARK: - Rows moved to the scratch file

    /// A configuration of `kind` whose transactions spool past 16 KB, so a few thousand small
    /// objects make a large transaction, with a node cache of `cacheSize` bytes.
    static func smallSpool(_ kind: StoreKind, in directory: TemporaryDirectory, cacheSize: Int = StoreConfiguration.defaultCacheSize)
        -> StoreConfiguration {
        var configuration = kind.configuration(in: directory)
        configuration.instructionSpoolBytes = 16 << 10
        configuration.cacheSize = cacheSize
        return configuration
    }

    /// The leaves of table `key`'s rows in `snapshot`, and how many of them are spilled.
    static func spilledLeaves(in snapshot: Snapshot, table key: TableKey) -> (spilled: Int, leaves: Int) {
        snapshot.table(key).map { spilledLeaves(below: $0.rows.root) } ?? (0, 0)
    }

    /// The leaves of table `key`'s integer primary-key index in `snapshot`, and how many are spilled.
    static func spilledIndexLeaves(in snapshot: Snapshot, table key: TableKey) -> (spilled: Int, leaves: Int) {
        snapshot.table(key)?.primaryKeyIndex.integers.map { spilledLeaves(below: $0.root) } ?? (0, 0)
    }

    static func spilledLeaves<Key, Value>(below root: SortedTree<Key, Value>.Node) -> (spilled: Int, leaves: Int) {
        var spilled = 0, leaves = 0
        func walk(_ node: SortedTree<Key, Value>.Node) {
            if node.isSpilled { spilled += 1 }
            if node.isSpilled || node.isLeaf {
                leaves += 1
                return
            }
            for child in node.children { walk(child) }
        }
        walk(root)
        return (spilled, leaves)
    }

    /// Whether every object of `ids` is found by its primary key in table `key` of `snapshot`.
    static func foundByPrimaryKey(_ ids: some Sequence<Int64>, in snapshot: Snapshot, table key: TableKey) -> Bool {
        guard let table = snapshot.table(key) else { return false }
        return ids.allSatisfy { id in
            table.object(forPrimaryKey: .int(id)).map { table.value(of: $0, column: 0) == .int(id) } ?? false
        }
    }

    @Test("a transaction creating many objects moves the leaves it filled to a scratch file; they read, change and go as rows in memory do, before and after the commit, a checkpoint and a reopen",
          arguments: [StoreKind.fileFull, .fileNormal])
    func filledLeavesMoveToScratch(kind: StoreKind) throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            let configuration = Self.smallSpool(kind, in: directory)
            var expected = Self.expected(1...Self.count)
            let table = try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                let tx = try store.beginWrite()
                var keys: [ObjectKey] = []
                for id in 1...Self.count { keys.append(try tx.insertObject(into: table, values: Self.item(id))) }
                let moved = Self.spilledLeaves(in: tx.snapshot, table: table)
                #expect(moved.spilled >= moved.leaves - 4, "all but the last few leaves moved: \(moved)")
                let index = Self.spilledIndexLeaves(in: tx.snapshot, table: table)
                #expect(index.spilled >= index.leaves - 2, "the primary key's full leaves moved: \(index)")
                #expect(Self.foundByPrimaryKey(1...Self.count, in: tx.snapshot, table: table))
                #expect(Self.items(in: tx.snapshot, table: table) == expected, "read back within the transaction")

                try tx.setValue(.double(-1), at: PropertyPath(table: table, object: keys[10], column: 2))
                try tx.eraseObject(keys[11], in: table)
                _ = try tx.insertObject(into: table, values: Self.item(Self.count + 1))
                expected[11]![2] = .double(-1)
                expected[12] = nil
                expected[Self.count + 1] = Self.item(Self.count + 1)
                #expect(Self.items(in: tx.snapshot, table: table) == expected)
                #expect(tx.snapshot.table(table)?.object(forPrimaryKey: .int(500)) == keys[499])
                try tx.commit()

                #expect(Self.items(in: store.currentSnapshot, table: table) == expected)
                #expect(Self.spilledLeaves(in: store.currentSnapshot, table: table).spilled > 0)
                try store.checkpoint()
                #expect(Self.spilledLeaves(in: store.currentSnapshot, table: table).spilled == 0,
                        "the checkpoint wrote every moved leaf into the page file")
                #expect(Self.items(in: store.currentSnapshot, table: table) == expected)
                return table
            }
            try withStore(configuration) { store in
                #expect(Self.items(in: store.currentSnapshot, table: table) == expected)
                #expect(Self.foundByPrimaryKey(expected.keys, in: store.currentSnapshot, table: table))
            }
        }
    }

    @Test("leaves moved to the scratch file go through a small cache: read back, evicted and read again, on several threads at once, beside a checkpoint")
    func movedLeavesThroughASmallCache() throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            let configuration = Self.smallSpool(.fileNormal, in: directory, cacheSize: 64 << 10)
            try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                try store.write { tx in
                    for id in 1...Self.count { _ = try tx.insertObject(into: table, values: Self.item(id)) }
                }
                let snapshot = store.currentSnapshot
                #expect(Self.spilledLeaves(in: snapshot, table: table).spilled > 0)
                let expected = Self.expected(1...Self.count)
                let failures = FailureLog()
                let finished = runOnThreads(4) { thread in
                    if thread == 0 {
                        do { try store.checkpoint() } catch { failures.record("checkpoint: \(error)") }
                    }
                    for _ in 0..<2 where Self.items(in: snapshot, table: table) != expected {
                        failures.record("thread \(thread) read other values")
                    }
                }
                #expect(finished)
                #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
                #expect(Self.items(in: store.currentSnapshot, table: table) == expected)
            }
        }
    }

    @Test("a cancelled transaction that moved rows to its scratch file leaves nothing behind")
    func cancelledAfterMovingRows() throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            let configuration = Self.smallSpool(.fileFull, in: directory)
            try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                try store.write { tx in _ = try tx.insertObject(into: table, values: Self.item(1)) }
                let tx = try store.beginWrite()
                for id in 2...Self.count { _ = try tx.insertObject(into: table, values: Self.item(id)) }
                #expect(Self.spilledLeaves(in: tx.snapshot, table: table).spilled > 0)
                tx.cancel()
                #expect(Self.items(in: store.currentSnapshot, table: table) == Self.expected([1]))
                try store.write { tx in _ = try tx.insertObject(into: table, values: Self.item(2)) }
                #expect(Self.items(in: store.currentSnapshot, table: table) == Self.expected(1...2))
            }
        }
    }

    @Test("a rows scratch file that cannot be made or written leaves the rows in memory, and the commit is the same",
          arguments: [StorageOperation.open, .write])
    func rowsScratchFailure(operation: StorageOperation) throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            defer { StorageFaults.shared.removeRules(matching: directory.name) }
            let configuration = Self.smallSpool(.fileFull, in: directory)
            let table = try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                StorageFaults.shared.inject(.fail(errno: ENOSPC), on: operation, matching: directory.name + "/(rows scratch)",
                                            count: 1_000)
                let tx = try store.beginWrite()
                for id in 1...Self.count { _ = try tx.insertObject(into: table, values: Self.item(id)) }
                #expect(tx.spooledBytes > 0)
                #expect(Self.spilledLeaves(in: tx.snapshot, table: table).spilled == 0)
                try tx.commit()
                StorageFaults.shared.removeRules(matching: directory.name)
                return table
            }
            try withStore(configuration) { store in
                #expect(Self.items(in: store.currentSnapshot, table: table) == Self.expected(1...Self.count))
            }
        }
    }

    @Test("rows created in key order are packed as their leaves fill; they read, change and go within the transaction as rows of their own do",
          arguments: [StoreKind.inMemory, .fileNormal])
    func rowsPackedAsLeavesFill(kind: StoreKind) throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            let configuration = kind.configuration(in: directory)
            let table = try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                let tx = try store.beginWrite()
                var keys: [ObjectKey] = []
                for id: Int64 in 1...300 { keys.append(try tx.insertObject(into: table, values: Self.item(id))) }
                let rows = try #require(tx.snapshot.table(table)?.rows)
                #expect(rows[keys[0]]?.isPacked == true, "the first leaf filled and was left behind")
                #expect(rows[keys[299]]?.isPacked == false, "the last leaf is still filling")
                #expect(Self.items(in: tx.snapshot, table: table) == Self.expected(1...300))

                try tx.setValue(.double(-1), at: PropertyPath(table: table, object: keys[5], column: 2))
                try tx.eraseObject(keys[6], in: table)
                var expected = Self.expected(1...300)
                expected[6]![2] = .double(-1)
                expected[7] = nil
                #expect(Self.items(in: tx.snapshot, table: table) == expected)
                #expect(tx.snapshot.table(table)?.rows[keys[7]]?.isPacked == true, "a neighbour of a changed row stays packed")
                try tx.commit()
                #expect(Self.items(in: store.currentSnapshot, table: table) == expected)
                return table
            }
            guard kind != .inMemory else { return }
            try withStore(configuration) { store in
                var expected = Self.expected(1...300)
                expected[6]![2] = .double(-1)
                expected[7] = nil
                #expect(Self.items(in: store.currentSnapshot, table: table) == expected)
            }
        }
    }
}
