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

    @Test("a scratch file that cannot be made or written leaves the instructions in memory, and the commit is the same",
          arguments: [StorageOperation.open, .write])
    func scratchFileFailure(operation: StorageOperation) throws {
        try withTemporaryDirectory(prefix: "strata-large-tx") { directory in
            defer { StorageFaults.shared.removeRules(matching: directory.name) }
            let configuration = StoreKind.fileFull.configuration(in: directory)
            let table = try withStore(configuration) { store in
                let table = try store.write { tx in try tx.createTable(Self.schema) }
                StorageFaults.shared.inject(.fail(errno: ENOSPC), on: operation, matching: directory.name + "/(scratch)",
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
