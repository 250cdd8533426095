import Foundation
import StrataEngine
@testable import StrataQuery
import Testing

/// The scan fast path must answer exactly as the predicate evaluator does, including for the
/// values it was not compiled for (nulls, doubles compared with ints, mixed values).
@Suite("Scan filter")
struct ScanFilterTests {
    private static let schema = TableSchema(name: "Item", columns: [
        ColumnSchema("age", .int),
        ColumnSchema("maybeAge", .int, isOptional: true),
        ColumnSchema("city", .string),
        ColumnSchema("maybeCity", .string, isOptional: true),
        ColumnSchema("score", .double),
        ColumnSchema("anything", .mixed, isOptional: true),
    ])

    /// 200 objects whose optional and mixed columns hold nulls, ints, doubles and strings. With
    /// `changed`, a write then changes every seventh object.
    private static func snapshot(changed: Bool = false) throws -> (Snapshot, TableKey) {
        let store = try Store.open(.inMemory("scan-filter-\(UUID().uuidString)"))
        let table = try store.write { tx in
            let table = try tx.createTable(schema)
            for n in 0..<200 {
                let mixed: Value = switch n % 5 {
                case 0: .null
                case 1: .int(Int64(n % 7))
                case 2: .double(Double(n % 7) + 0.5)
                case 3: .string("city-\(n % 3)")
                default: .int(3)
                }
                _ = try tx.insertObject(into: table, values: [
                    .int(Int64(n % 10)),
                    n % 3 == 0 ? .null : .int(Int64(n % 6)),
                    .string("city-\(n % 4)"),
                    n % 4 == 0 ? .null : .string(n % 2 == 0 ? "City-1" : "city-1"),
                    .double(Double(n % 9) / 2),
                    mixed,
                ])
            }
            return table
        }
        if changed {
            try store.write { tx in
                for n in stride(from: 0, to: 200, by: 7) {
                    try tx.setValue(.int(Int64(n % 4)), at: PropertyPath(table: table, object: ObjectKey(Int64(n)), column: 0))
                    try tx.setValue(n % 2 == 0 ? .null : .string("city-1"),
                                    at: PropertyPath(table: table, object: ObjectKey(Int64(n)), column: 3))
                }
            }
        }
        return (store.currentSnapshot, table)
    }

    @Test("a conjunction of column-constant comparisons gives the evaluator's answer for every row", arguments: [
        "age > 5", "age >= 5 AND age != 7", "age == 3", "age < 2 OR age > 8",
        "maybeAge > 2", "maybeAge == nil", "maybeAge != nil AND maybeAge <= 3", "maybeAge < 3", "maybeAge == 0",
        "maybeCity == ''", "maybeCity != '' AND age > 2",
        "city == 'city-1'", "city != 'city-1' AND age < 5", "maybeCity == 'city-1'", "maybeCity != 'city-1'",
        "maybeCity ==[c] 'CITY-1'", "city BEGINSWITH 'city-'", "score > 2", "score == 2", "age > 2.5",
        "anything == 3", "anything > 2", "anything == 'city-1'", "anything != nil AND age > 1",
        "age BETWEEN {2, 4}", "TRUEPREDICATE",
    ])
    func agreesWithTheEvaluator(query: String) throws {
        for changed in [false, true] { try Self.expectAgreement(query, try Self.snapshot(changed: changed)) }
    }

    private static func expectAgreement(_ query: String, _ data: (Snapshot, TableKey)) throws {
        let (snapshot, table) = data
        let compiled = try CompiledQuery(try RQLParser.parse(query), snapshot: snapshot, table: table)
        let evaluator = PredicateEvaluator(snapshot: snapshot, root: table)
        var expected: [ObjectKey] = []
        snapshot.table(table)!.forEachObject { key, row in
            if let filter = compiled.scanFilter { #expect(filter.matches(row) == evaluator.matches(compiled.predicate, key: key, row: row), "\(key)") }
            if evaluator.matches(compiled.predicate, key: key, row: row) { expected.append(key) }
        }
        #expect(compiled.run(on: snapshot) == expected)
        #expect(compiled.count(on: snapshot) == expected.count)
    }

    @Test("over rows packed column by column, whole leaves and leaves with changed rows, the answer is the evaluator's", arguments: [
        "age > 5", "age >= 5 AND age != 7", "age == 3", "maybeAge > 2", "maybeAge == nil", "maybeAge < 3",
        "maybeAge == 0", "maybeAge != nil AND maybeAge <= 3", "city == 'city-1'", "city != 'city-1' AND age < 5",
        "maybeCity == 'city-1'", "maybeCity != 'city-1'", "maybeCity == ''", "maybeCity != '' AND age > 2",
        "maybeCity ==[c] 'CITY-1'", "score > 2", "age > 2.5", "anything == 3", "anything > 2", "anything == 'city-1'",
        "anything != nil AND age > 1",
    ])
    func agreesOverPackedRows(query: String) throws {
        let (snapshot, table) = try Self.snapshot()
        let compiled = try CompiledQuery(try RQLParser.parse(query), snapshot: snapshot, table: table)
        let filter = try #require(compiled.scanFilter)
        let evaluator = PredicateEvaluator(snapshot: snapshot, root: table)
        var keys: [ObjectKey] = [], rows: [Row] = []
        snapshot.table(table)!.forEachObject { key, row in
            keys.append(key)
            rows.append(row)
        }
        // Leaves as a page read gives them: 64 rows packed into one block (the last one fewer);
        // then the same leaves with a row changed in each (a row of its own among packed ones).
        for changed in [false, true] {
            for start in stride(from: 0, to: rows.count, by: 64) {
                var leaf = Array(rows[start..<min(start + 64, rows.count)])
                leaf = Row.repacked(leaf) ?? leaf
                #expect(leaf.allSatisfy { $0.isPacked })
                if changed { leaf[leaf.count / 2][0] = .int(4) }
                var found: [Int] = []
                leaf.withUnsafeBufferPointer { leaf in filter.forEachMatch(in: leaf) { found.append($0) } }
                let expected = leaf.indices.filter { evaluator.matches(compiled.predicate, key: keys[start + $0], row: leaf[$0]) }
                #expect(found == expected, "leaf at \(start), changed: \(changed)")
            }
        }
    }

    @Test("an empty table, and an empty leaf with spare capacity, match nothing")
    func emptyLeaves() throws {
        let store = try Store.open(.inMemory("scan-filter-empty-\(UUID().uuidString)"))
        let table = try store.write { tx in try tx.createTable(Self.schema) }
        let compiled = try CompiledQuery(try RQLParser.parse("age > 5 AND city == 'x'"), snapshot: store.currentSnapshot, table: table)
        #expect(compiled.run(on: store.currentSnapshot).isEmpty)
        #expect(compiled.count(on: store.currentSnapshot) == 0)
        // A leaf's array keeps its capacity when its rows go: its buffer has an address and no rows.
        var rows = [Row([.int(9), .null, .string("x"), .null, .double(0), .null])]
        rows.reserveCapacity(64)
        rows = Row.repacked(rows) ?? rows
        #expect(rows[0].isPacked)
        rows.removeAll(keepingCapacity: true)
        var found = 0
        rows.withUnsafeBufferPointer { leaf in try? #require(compiled.scanFilter).forEachMatch(in: leaf) { _ in found += 1 } }
        #expect(found == 0)
    }

    @Test("only conjunctions of root-column comparisons with constants take the fast path")
    func shapes() throws {
        let (snapshot, table) = try Self.snapshot()
        func filter(_ query: String) throws -> ScanFilter? {
            try CompiledQuery(try RQLParser.parse(query), snapshot: snapshot, table: table).scanFilter
        }
        #expect(try filter("age > 5 AND city == 'city-1' AND score < 3")?.terms.count == 3)
        #expect(try filter("age < 2 OR age > 8") == nil)
        #expect(try filter("NOT age == 2") == nil)
        #expect(try filter("age BETWEEN {2, 4}") == nil)
        #expect(try filter("TRUEPREDICATE") == nil)
    }
}
