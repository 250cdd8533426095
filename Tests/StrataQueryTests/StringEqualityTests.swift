import Foundation
import StrataEngine
@testable import StrataQuery
import Testing

/// `==` and `!=` on strings compare UTF-8 bytes, as Realm Core does, on every path: an index
/// lookup, the scan fast path and the general evaluator give the same answer. (Swift's `String ==`
/// follows canonical equivalence, so a scan found "Å" written as two scalars where the index,
/// ordered by bytes, did not.)
@Suite("String equality in queries")
struct StringEqualityTests {
    private static let spellings = ["\u{00C5}", "\u{212B}", "A\u{030A}", "\u{E9}", "e\u{301}"]

    @Test("indexed and unindexed columns find exactly the byte-equal strings", arguments: spellings)
    func byteEquality(wanted: String) throws {
        let store = try Store.open(.inMemory("string-equality-\(UUID().uuidString)"))
        let table = try store.write { tx in
            let table = try tx.createTable(TableSchema(name: "Word", columns: [
                ColumnSchema("indexed", .string, isIndexed: true), ColumnSchema("plain", .string),
                ColumnSchema("any", .mixed, isOptional: true),
            ]))
            for spelling in Self.spellings {
                _ = try tx.insertObject(into: table, values: [.string(spelling), .string(spelling), .string(spelling)])
            }
            return table
        }
        let snapshot = store.currentSnapshot
        let expected = snapshot.table(table)!.objectKeys.filter { key in
            guard case .string(let stored) = snapshot.table(table)!.value(of: key, column: 1) else { return false }
            return Array(stored.utf8) == Array(wanted.utf8)
        }
        #expect(expected.count == 1)
        for column in ["indexed", "plain", "any"] {
            for query in ["\(column) == $0", "\(column) == $0 AND TRUEPREDICATE", "NOT \(column) != $0"] {
                let parsed = try RQLParser.parse(query, arguments: [.value(.string(wanted))])
                let compiled = try CompiledQuery(parsed, snapshot: snapshot, table: table)
                #expect(compiled.run(on: snapshot) == expected, "\(query) with \(Array(wanted.utf8))")
            }
        }
    }
}
