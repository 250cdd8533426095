import Foundation
import StrataStorage
import StrataSupport
import Testing
@testable import StrataEngine

/// Flips one random bit in one random page of a closed store's page file, case after case, and
/// checks the store never reads wrong data: opening throws `corruptFile` naming the file and the
/// page when the flip hit what opening reads (the header, the catalog, the free list); otherwise
/// `verifyFile()` throws `corruptFile` naming the page when the page is in use, and when it passes
/// (the page was free), every row reads back exactly as written.
///
/// `STRATA_PAGE_DAMAGE_CASES` sets the number of cases (default 40); `STRATA_SEED` replays a run.
@Suite("Page damage")
struct PageDamageTests {
    @Test("a bit flipped in any page is reported naming the file and the page, or was in a free page; never a wrong read")
    func bitFlips() throws {
        let cases = longModeCount("STRATA_PAGE_DAMAGE_CASES", standard: 40)
        let seed = SeededRandom.seedFromEnvironment()
        print("page damage: \(cases) cases, seed \(seed) (STRATA_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        try withTemporaryDirectory { directory in
            let original = directory.file("original.strata")
            var expected: [Int64: Int64] = [:]
            try withStore(.file(original)) { store in
                let table = try store.write { tx in
                    let table = try tx.createTable(TableSchema(
                        name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("n", .int, isIndexed: true)],
                        primaryKey: "id"))
                    for id in Int64(0)..<3000 { _ = try tx.insertObject(into: table, values: [.int(id), .int(id)]) }
                    return table
                }
                for id in Int64(0)..<3000 { expected[id] = id }
                try store.checkpoint()
                // Replace some leaves, so that the file has free pages too.
                try store.write { tx in
                    for id in stride(from: Int64(0), to: 3000, by: 97) {
                        try tx.setValue(.int(-id), at: PropertyPath(table: table, object: ObjectKey(id), column: 1))
                        expected[id] = -id
                    }
                }
                try store.checkpoint()
                try store.checkpoint()
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
            let header = try PageFile.open(path: original).header
            let pageSize = header.pageSize
            var outcomes: [String: Int] = [:]
            for index in 0..<cases {
                let page = 2 + Int(random.next() % (header.checkpoint.pageCount - 2))
                let offset = page * pageSize + Int(random.next() % UInt64(pageSize))
                var damaged = bytes
                damaged[offset] ^= UInt8(1) << UInt8(random.next() % 8)
                let path = directory.file("case-\(index).strata")
                try writeStoreCopy(of: original, to: path, pageFile: damaged)
                let label = "case \(index): page \(page), byte \(offset - page * pageSize)"
                let pageRange = UInt64(page * pageSize)..<UInt64((page + 1) * pageSize)
                func expectNamed(_ error: StrataError) {
                    #expect(error.code == .corruptFile && error.path == path, "\(label): \(error)")
                    #expect(error.offset.map(pageRange.contains) == true || error.message.contains("page \(page) "),
                            "\(label): the error does not name the page: \(error)")
                }
                do {
                    try withStore(.file(path)) { store in
                        do {
                            _ = try store.verifyFile()
                        } catch let error as StrataError {
                            expectNamed(error)
                            outcomes["in use, verifyFile names it", default: 0] += 1
                            return
                        }
                        let table = try #require(store.currentSnapshot.table(named: "Counter"))
                        var read: [Int64: Int64] = [:]
                        table.forEachObject { key, row in
                            if case .int(let n) = row.values[1] { read[key.rawValue] = n }
                        }
                        #expect(read == expected, "\(label): a wrong read")
                        outcomes["free page, every row reads back", default: 0] += 1
                    }
                } catch let error as StrataError {
                    expectNamed(error)
                    outcomes["opening names it", default: 0] += 1
                }
            }
            print("page damage: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))")
        }
    }
}
