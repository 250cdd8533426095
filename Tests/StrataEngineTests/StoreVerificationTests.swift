import Foundation
import StrataStorage
import StrataSupport
import StrataTestSupport
import Testing
@testable import StrataEngine

/// `Store.verifyFiles(atPath:)` and `Store.salvage(atPath:toPath:)` on real stores damaged on
/// disk: every damaged page is named (file and page), nothing traps, and what is readable is kept.
@Suite("Store verification and salvage")
struct StoreVerificationTests {
    private static let schema = TableSchema(
        name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("n", .int, isIndexed: true)],
        primaryKey: "id")

    /// A closed store at `path` of `count` counters (n = id), checkpointed, then `updates` commits
    /// after the checkpoint (each setting one counter's n to -id, every 97th id), left in the log.
    /// Returns the expected n of every id.
    private static func makeStore(at path: String, count: Int64 = 3000, updates: Int = 10) throws -> [Int64: Int64] {
        var expected: [Int64: Int64] = [:]
        try withStore(.keepingTheLog(path)) { store in
            let table = try store.write { tx in
                let table = try tx.createTable(schema)
                for id in Int64(0)..<count { _ = try tx.insertObject(into: table, values: [.int(id), .int(id)]) }
                return table
            }
            for id in Int64(0)..<count { expected[id] = id }
            try store.checkpoint()
            for id in stride(from: Int64(0), to: Int64(updates) * 97, by: 97) {
                try store.write { tx in
                    try tx.setValue(.int(-id), at: PropertyPath(table: table, object: ObjectKey(id), column: 1))
                }
                expected[id] = -id
            }
        }
        return expected
    }

    @Test("an intact store verifies with no damage, counting the pages and the log records it checked")
    func intact() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("intact.strata")
            _ = try Self.makeStore(at: path)
            let verification = try Store.verifyFiles(atPath: path)
            #expect(verification.damage.isEmpty, "\(verification.damage)")
            #expect(verification.pagesChecked > 40)
            #expect(verification.logRecordsChecked == 10)
            // Nothing was changed: the store opens and reads as before.
            let pagesInUse = try withStore(.keepingTheLog(path)) { store in try store.verifyFile() }
            #expect(pagesInUse == verification.pagesChecked)
        }
    }

    @Test("verifyFiles names every damaged leaf page (file, page, what is wrong, which table) and does not stop the process")
    func damagedLeavesAreEachNamed() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("damaged.strata")
            _ = try Self.makeStore(at: path)
            let damaged = try damageLeafPagesOfLastCheckpoint(storeAt: path, count: 3)
            #expect(damaged.count == 3)
            let verification = try Store.verifyFiles(atPath: path)
            #expect(Set(verification.damage.compactMap(\.page)) == Set(damaged), "\(verification.damage)")
            for damage in verification.damage {
                #expect(damage.path == path)
                #expect(damage.offset == damage.page.map { $0 * UInt64(verification.pageSize) })
                #expect(damage.problem.contains("page \(damage.page ?? 0) of \(path) is damaged: checksum mismatch"))
                #expect(damage.structure?.contains("table Counter") == true)
            }
            #expect(verification.logRecordsChecked == 10)
        }
    }

    @Test("salvage keeps every object on pages that check out, counts those lost, and applies the log records that still apply")
    func salvageKeepsWhatIsReadable() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("damaged.strata")
            let expected = try Self.makeStore(at: path)
            let damaged = try damageLeafPagesOfLastCheckpoint(storeAt: path, count: 3)
            let destination = directory.file("salvaged.strata")
            let salvage = try Store.salvage(atPath: path, toPath: destination)
            // Salvage reads the objects' trees only (the indexes are rebuilt): the damaged pages
            // that hold objects are named, and what they held is counted as lost.
            #expect(!salvage.damage.isEmpty && salvage.objectsLost["Counter", default: 0] > 0)
            for damage in salvage.damage {
                #expect(damage.page.map(damaged.contains) == true, "\(damage)")
                #expect(damage.structure == "the objects of table Counter")
            }
            let saved = salvage.objectsSalvaged["Counter", default: 0]
            #expect(saved + salvage.objectsLost["Counter", default: 0] == expected.count)
            #expect(salvage.logRecordsApplied + salvage.logRecordsSkipped == 10)
            // The salvaged store is intact and holds exactly what was readable, each as written.
            #expect(try Store.verifyFiles(atPath: destination).damage.isEmpty)
            try withStore(.file(destination)) { store in
                let table = try #require(store.currentSnapshot.table(named: "Counter"))
                var read = 0
                table.forEachObject { key, row in
                    read += 1
                    #expect(row.values == [.int(key.rawValue), .int(expected[key.rawValue] ?? .min)])
                }
                #expect(read == salvage.objectsSalvaged["Counter"])
                #expect(try store.verifyFile() > 0)
            }
            // The damaged store was not changed.
            #expect(Set(try Store.verifyFiles(atPath: path).damage.compactMap(\.page)).count == 3)
        }
    }

    @Test("a damaged current header slot is reported as such, by the open and by verifyFiles, not as a missing log segment")
    func damagedCurrentHeaderSlot() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("header.strata")
            _ = try Self.makeStore(at: path, count: 100, updates: 0)
            // Two more checkpoints, each after a commit (so each starts a new log segment): the log
            // the older slot needs is gone.
            try withStore(.keepingTheLog(path)) { store in
                let table = try #require(store.currentSnapshot.table(named: "Counter")?.key)
                for value in Int64(1)...2 {
                    try store.write { tx in
                        try tx.setValue(.int(value), at: PropertyPath(table: table, object: ObjectKey(0), column: 1))
                    }
                    try store.checkpoint()
                }
            }
            let slot = Int(try PageFile.open(path: path, options: .init(cacheBytes: 0, readOnly: true)).header.slot)
            try damageHeaderSlot(slot, ofStoreAt: path)
            let error = expectStrataError(.corruptFile) { try Store.open(.file(path)) }
            #expect(error?.message.contains("header slot \(slot) (page \(slot)) of \(path) is damaged, and it is the "
                                                + "current header") == true, "\(String(describing: error))")
            #expect(error?.path == path)
            #expect(error?.offset == UInt64(slot) * 4096)
            let verification = try Store.verifyFiles(atPath: path)
            #expect(verification.damage.map(\.page) == [UInt64(slot)], "\(verification.damage)")
            #expect(verification.damage.first?.structure == "the header")
        }
    }

    @Test("a damaged older header slot (as a crash while its checkpoint ran leaves it) is no damage: the store opens")
    func damagedOlderHeaderSlot() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("older.strata")
            let expected = try Self.makeStore(at: path, count: 100, updates: 1)
            let slot = Int(try PageFile.open(path: path, options: .init(cacheBytes: 0, readOnly: true)).header.slot)
            try damageHeaderSlot(1 - slot, ofStoreAt: path)
            #expect(try Store.verifyFiles(atPath: path).damage.isEmpty)
            try withStore(.keepingTheLog(path)) { store in
                #expect(store.currentSnapshot.table(named: "Counter")?.count == expected.count)
            }
        }
    }

    @Test("verifyFiles refuses a store open in this process, and names a missing store")
    func refusals() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("open.strata")
            try withStore(.keepingTheLog(path)) { _ in
                _ = expectStrataError(.wrongState) { try Store.verifyFiles(atPath: path) }
            }
            expectStrataError(.fileNotFound) { try Store.verifyFiles(atPath: directory.file("none.strata")) }
        }
    }
}
