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

    /// 200 objects whose optional and mixed columns hold nulls, ints, doubles and strings.
    private static func snapshot() throws -> (Snapshot, TableKey) {
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
        return (store.currentSnapshot, table)
    }

    @Test("a conjunction of column-constant comparisons gives the evaluator's answer for every row", arguments: [
        "age > 5", "age >= 5 AND age != 7", "age == 3", "age < 2 OR age > 8",
        "maybeAge > 2", "maybeAge == nil", "maybeAge != nil AND maybeAge <= 3",
        "city == 'city-1'", "city != 'city-1' AND age < 5", "maybeCity == 'city-1'", "maybeCity != 'city-1'",
        "maybeCity ==[c] 'CITY-1'", "city BEGINSWITH 'city-'", "score > 2", "score == 2", "age > 2.5",
        "anything == 3", "anything > 2", "anything == 'city-1'", "anything != nil AND age > 1",
        "age BETWEEN {2, 4}", "TRUEPREDICATE",
    ])
    func agreesWithTheEvaluator(query: String) throws {
        let (snapshot, table) = try Self.snapshot()
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
