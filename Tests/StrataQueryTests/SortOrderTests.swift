import Foundation
import StrataEngine
@testable import StrataQuery
import Testing

/// Sorted query results must follow ``Value/compare(_:)`` with ties in key order, whichever path
/// the sort takes: values gathered by the scan or read again, numbers sorted as plain numbers or
/// as values (nulls, NaN, mixed kinds).
@Suite("Sort order")
struct SortOrderTests {
    private static let schema = TableSchema(name: "Item", columns: [
        ColumnSchema("age", .int),
        ColumnSchema("maybeAge", .int, isOptional: true),
        ColumnSchema("score", .double),
        ColumnSchema("maybeScore", .double, isOptional: true),
        ColumnSchema("name", .string),
        ColumnSchema("anything", .mixed, isOptional: true),
    ])

    /// 300 objects with many ties; `withNaN` puts NaN and signed zeros into `score`.
    private static func snapshot(withNaN: Bool) throws -> (Snapshot, TableKey) {
        let store = try Store.open(.inMemory("sort-order-\(UUID().uuidString)"))
        let table = try store.write { tx in
            let table = try tx.createTable(schema)
            for n in 0..<300 {
                var score = Double(n % 13) / 4 - 1
                if withNaN && n % 17 == 0 { score = .nan }
                if withNaN && n % 19 == 0 { score = n % 2 == 0 ? -0.0 : 0.0 }
                _ = try tx.insertObject(into: table, values: [
                    .int(Int64((n * 7) % 11) - 5),
                    n % 4 == 0 ? .null : .int(Int64(n % 6)),
                    .double(score),
                    n % 5 == 0 ? .null : .double(Double(n % 3)),
                    .string("name-\(n % 9)"),
                    n % 3 == 0 ? .int(Int64(n % 4)) : (n % 3 == 1 ? .double(Double(n % 4) + 0.5) : .null),
                ])
            }
            return table
        }
        return (store.currentSnapshot, table)
    }

    /// The matches of `filter` in key order, stably sorted by `columns` as `Value.compare` orders.
    private static func expected(_ snapshot: Snapshot, _ table: TableKey, filter: String,
                                 by columns: [(column: Int, ascending: Bool)]) throws -> [ObjectKey] {
        let matches = try CompiledQuery(try RQLParser.parse(filter), snapshot: snapshot, table: table)
            .run(on: snapshot)
        let rows = snapshot.table(table)!
        return matches.enumerated().sorted { left, right in
            for (column, ascending) in columns {
                let order = rows.value(of: left.element, column: column)!
                    .compare(rows.value(of: right.element, column: column)!)
                if order != 0 { return ascending ? order < 0 : order > 0 }
            }
            return left.offset < right.offset
        }.map(\.element)
    }

    @Test("one sort key, ascending and descending, with and without a filter", arguments: [
        (0, "age"), (1, "maybeAge"), (2, "score"), (3, "maybeScore"), (4, "name"), (5, "anything"),
    ])
    func oneKey(column: Int, name: String) throws {
        for withNaN in [false, true] {
            let (snapshot, table) = try Self.snapshot(withNaN: withNaN)
            for filter in ["TRUEPREDICATE", "age > -2", "age > -2 OR name == 'name-3'"] {
                for ascending in [true, false] {
                    let query = "\(filter) SORT(\(name) \(ascending ? "ASC" : "DESC"))"
                    let found = try CompiledQuery(try RQLParser.parse(query), snapshot: snapshot, table: table)
                        .run(on: snapshot)
                    let expected = try Self.expected(snapshot, table, filter: filter, by: [(column, ascending)])
                    #expect(found == expected, "\(query), NaN: \(withNaN)")
                }
            }
        }
    }

    @Test("two sort keys break ties in order, then key order")
    func twoKeys() throws {
        let (snapshot, table) = try Self.snapshot(withNaN: true)
        let query = "age >= -5 SORT(age DESC, score ASC)"
        let found = try CompiledQuery(try RQLParser.parse(query), snapshot: snapshot, table: table).run(on: snapshot)
        #expect(found == (try Self.expected(snapshot, table, filter: "age >= -5", by: [(0, false), (2, true)])))
    }

    @Test("kept rows are the matches' own rows, in the query's order, after sort, distinct and limit", arguments: [
        "age > -2", "age > -2 SORT(score DESC)", "age > -2 SORT(name ASC) DISTINCT(name)",
        "age > -2 OR name == 'name-3' SORT(maybeAge ASC, age DESC) LIMIT(17)", "TRUEPREDICATE SORT(age ASC)",
    ])
    func keptRows(query: String) throws {
        let (snapshot, table) = try Self.snapshot(withNaN: false)
        let compiled = try CompiledQuery(try RQLParser.parse(query), snapshot: snapshot, table: table)
        let matches = compiled.matches(on: snapshot, keepingRows: true)
        #expect(matches.keys == compiled.run(on: snapshot))
        let rows = try #require(matches.rows, "the query read every match's row")
        #expect(rows == matches.keys.map { snapshot.table(table)!.row($0)! })
        #expect(compiled.matches(on: snapshot, keepingRows: false).rows == nil)
    }

    @Test("numbers sort as plain numbers only when they are all integers or all non-NaN doubles")
    func numericFastPath() {
        #expect(CompiledQuery.numericOrder([.int(3), .int(1), .int(3), .int(2)], ascending: true) == [1, 3, 0, 2])
        #expect(CompiledQuery.numericOrder([.int(3), .int(1), .int(3), .int(2)], ascending: false) == [0, 2, 3, 1])
        #expect(CompiledQuery.numericOrder([.double(0.0), .double(-0.0), .double(-1)], ascending: true) == [2, 0, 1])
        #expect(CompiledQuery.numericOrder([.double(.nan), .double(1)], ascending: true) == nil)
        #expect(CompiledQuery.numericOrder([.int(1), .null], ascending: true) == nil)
        #expect(CompiledQuery.numericOrder([.int(1), .double(2)], ascending: true) == nil)
    }
}
