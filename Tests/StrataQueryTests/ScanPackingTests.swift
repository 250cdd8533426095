import Foundation
import StrataEngine
@testable import StrataQuery
import StrataTestSupport
import Testing

/// A scan of a published snapshot packs the leaves of rows written since the last checkpoint
/// (`CompiledQuery.matches(on:base:keepingRows:packingRows:)`): the answers and the rows' values
/// stay the same, the leaves end up packed, and scans on several threads at once, with a writer
/// committing beside them, each see their own snapshot whole.
@Suite("Scans packing rows")
struct ScanPackingTests {
    private static let schema = TableSchema(name: "Item", columns: [
        ColumnSchema("age", .int),
        ColumnSchema("city", .string),
        ColumnSchema("maybeScore", .double, isOptional: true),
    ])

    /// 1,000 objects (16 leaves), every seventh changed by a second write: leaves of rows of
    /// their own, as transactions leave them.
    private static func store() throws -> (Store, TableKey) {
        let store = try Store.open(.inMemory("scan-packing-\(UUID().uuidString)"))
        let table = try store.write { tx in
            let table = try tx.createTable(schema)
            for n in 0..<1_000 {
                _ = try tx.insertObject(into: table, values: [
                    .int(Int64(n % 100)), .string("city-\(n % 4)"), n % 3 == 0 ? .null : .double(Double(n) / 4),
                ])
            }
            return table
        }
        try store.write { tx in
            for n in stride(from: 0, to: 1_000, by: 7) {
                try tx.setValue(.int(Int64(n % 5)), at: PropertyPath(table: table, object: ObjectKey(Int64(n)), column: 0))
            }
        }
        return (store, table)
    }

    /// How many of the table's leaves hold their rows packed in one block, and every row's values.
    private static func survey(_ snapshot: Snapshot, _ table: TableKey) -> (packedLeaves: Int, leaves: Int, rows: [[Value]]) {
        var packed = 0, leaves = 0
        var rows: [[Value]] = []
        snapshot.table(table)!.forEachLeaf { _, leaf in
            leaves += 1
            guard let base = leaf.baseAddress else { return }
            let blocks = (0..<leaf.count).map { Row.packedBlock(at: base + $0).map { $0.block.toOpaque() } }
            if let first = blocks.first, first != nil, blocks.allSatisfy({ $0 == first }) { packed += 1 }
            rows.append(contentsOf: leaf.map { row in (0..<row.count).map { row[$0] } })
        }
        return (packed, leaves, rows)
    }

    /// Runs `query` on `snapshot` with a packing scan and records a failure when its matches
    /// differ from the evaluator's, row by row.
    private static func scanPackingAgrees(_ query: ParsedQuery, _ snapshot: Snapshot, _ table: TableKey, thread: Int,
                                          _ failures: FailureLog) throws {
        let compiled = try CompiledQuery(query, snapshot: snapshot, table: table)
        let evaluator = PredicateEvaluator(snapshot: snapshot, root: table)
        var expected: [ObjectKey] = []
        snapshot.table(table)!.forEachObject { key, row in
            if evaluator.matches(compiled.predicate, key: key, row: row) { expected.append(key) }
        }
        if compiled.matches(on: snapshot, keepingRows: true, packingRows: true).keys != expected {
            failures.record("thread \(thread): a scan of version \(snapshot.version) disagreed")
        }
    }

    @Test("a scan with packing answers as one without, leaves every leaf packed with the same values; one without packs nothing")
    func packsWhatItScans() throws {
        let (store, table) = try Self.store()
        let snapshot = store.currentSnapshot
        let before = Self.survey(snapshot, table)
        #expect(before.packedLeaves == 0 && before.leaves >= 16)
        let queries = ["age < 3 AND city == 'city-1'", "age >= 50", "maybeScore == nil", "maybeScore > 100.5 OR age == 2"]
        let compiled = try queries.map { try CompiledQuery(try RQLParser.parse($0), snapshot: snapshot, table: table) }
        let answers = compiled.map { $0.matches(on: snapshot, keepingRows: true, packingRows: false) }
        #expect(Self.survey(snapshot, table).packedLeaves == 0)
        for (query, (compiled, unpacked)) in zip(queries, zip(compiled, answers)) {
            let packing = compiled.matches(on: snapshot, keepingRows: true, packingRows: true)
            let packed = compiled.matches(on: snapshot, keepingRows: true, packingRows: true)
            #expect(packing.keys == unpacked.keys && packed.keys == unpacked.keys, "\(query)")
            #expect(packing.rows == unpacked.rows && packed.rows == unpacked.rows, "\(query)")
            #expect(!unpacked.keys.isEmpty, "\(query)")
        }
        let after = Self.survey(snapshot, table)
        #expect(after.packedLeaves == after.leaves)
        #expect(after.rows == before.rows)
    }

    @Test("scans packing the same leaves on four threads, while a writer commits, each count their own snapshot's matches")
    func concurrentScansWithAWriter() throws {
        let (store, table) = try Self.store()
        let query = try RQLParser.parse("age < 5 AND city != 'city-2'")
        let failures = FailureLog()
        let finished = runOnThreads(5) { thread in
            do {
                if thread == 4 {
                    // The writer: changes rows (leaves shared with the snapshots being scanned).
                    for round in 0..<30 {
                        try store.write { tx in
                            for n in stride(from: round, to: 1_000, by: 37) {
                                try tx.setValue(.int(Int64((n + round) % 100)),
                                                at: PropertyPath(table: table, object: ObjectKey(Int64(n)), column: 0))
                            }
                        }
                    }
                    return
                }
                for _ in 0..<40 {
                    try Self.scanPackingAgrees(query, store.currentSnapshot, table, thread: thread, failures)
                }
            } catch {
                failures.record("thread \(thread): \(error)")
            }
        }
        #expect(finished)
        #expect(failures.all.isEmpty, "\(failures.all)")
    }

    @Test("scans packing leaves beside a writer that checkpoints a file store through a small cache (evicting, reading back and repacking leaves) answer as the evaluator")
    func scansBesideCheckpoints() throws {
        try withTemporaryDirectory { directory in
            var configuration = StoreConfiguration.file(directory.file("packing.strata"))
            configuration.cacheSize = 64 << 10
            let store = try Store.open(configuration)
            let table = try store.write { tx in
                let table = try tx.createTable(Self.schema)
                for n in 0..<3_000 {
                    _ = try tx.insertObject(into: table, values: [.int(Int64(n % 100)), .string("city-\(n % 4)"), .null])
                }
                return table
            }
            let query = try RQLParser.parse("age < 20 AND city == 'city-1'")
            let failures = FailureLog()
            let stop = StopFlag()
            let finished = runOnThreads(4) { thread in
                do {
                    if thread == 0 {
                        defer { stop.stop() }
                        for round in 0..<12 {
                            try store.write { tx in
                                for n in stride(from: round, to: 3_000, by: 53) {
                                    try tx.setValue(.int(Int64((n * 7 + round) % 100)),
                                                    at: PropertyPath(table: table, object: ObjectKey(Int64(n)), column: 0))
                                }
                            }
                            if round % 3 == 2 { try store.checkpoint() }
                        }
                        return
                    }
                    while !stop.isStopped {
                        try Self.scanPackingAgrees(query, store.currentSnapshot, table, thread: thread, failures)
                    }
                } catch {
                    failures.record("thread \(thread): \(error)")
                }
            }
            #expect(finished)
            #expect(failures.all.isEmpty, "\(failures.all)")
        }
    }
}
