import Testing
@testable import StrataEngine
import StrataSupport

/// How a transaction's instructions are recorded (``InstructionSpool``): a value set followed at
/// once by another set of the same property is replaced by it; every other instruction is kept,
/// in order.
@Suite("Instruction spool")
struct InstructionSpoolTests {
    static let schema = TableSchema(
        name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("n", .int), ColumnSchema("tags", .string, collection: .list)],
        primaryKey: "id")

    @Test("consecutive sets of one property commit as the last one; the record replays to the same state",
          arguments: [StoreKind.inMemory, .fileNormal])
    func consecutiveSetsCoalesce(kind: StoreKind) throws {
        try withTemporaryDirectory(prefix: "strata-spool") { directory in
            let configuration = kind.configuration(in: directory)
            let (table, object) = try withStore(configuration) { store in
                let (table, object) = try store.write { tx in
                    let table = try tx.createTable(Self.schema)
                    return (table, try tx.insertObject(into: table, values: [.int(1), .int(0), .list([])]))
                }
                var pin: PinnedSnapshot? = try store.pin()
                let n = PropertyPath(table: table, object: object, column: 1)
                let tags = PropertyPath(table: table, object: object, column: 2)
                let tx = try store.beginWrite()
                for value in 1...1_000 { try tx.setValue(.int(Int64(value)), at: n) }
                #expect(tx.instructionCount == 1_000, "every set applied counts")
                #expect(tx.instructions == [.setValue(n, .int(1_000))])
                try tx.setValue(.list([.string("a")]), at: tags)
                try tx.setValue(.int(7), at: n)
                try tx.setValue(.list([.string("b")]), at: tags)
                try tx.setValue(.int(8), at: n)
                try tx.setValue(.int(9), at: n)
                let expected: [Instruction] = [
                    .setValue(n, .int(1_000)), .setValue(tags, .list([.string("a")])), .setValue(n, .int(7)),
                    .setValue(tags, .list([.string("b")])), .setValue(n, .int(9)),
                ]
                #expect(tx.instructions == expected, "collection sets and sets of other properties are kept, in order")
                let version = try tx.commit()
                let changeset = try #require(store.changesets(after: pin!.version)?.last)
                #expect(changeset.version == version)
                #expect(changeset.instructions == expected)
                #expect(changeset.collectionEdits == [.setValue(tags, .list([.string("a")])), .setValue(tags, .list([.string("b")]))])
                #expect(changeset.summary[table].modifications == [object: [1, 2]])
                pin = nil
                #expect(store.currentSnapshot.table(table)?.value(of: object, column: 1) == .int(9))
                return (table, object)
            }
            guard kind != .inMemory else { return }
            try withStore(configuration) { store in
                #expect(store.currentSnapshot.table(table)?.value(of: object, column: 1) == .int(9))
                #expect(store.currentSnapshot.table(table)?.value(of: object, column: 2) == .list([.string("b")]))
            }
        }
    }

    @Test("a set followed by the erasure of its object, or by a set of another object, is kept")
    func setThenOtherInstructions() throws {
        try withTemporaryDirectory(prefix: "strata-spool") { directory in
            try withStore(StoreKind.fileFull.configuration(in: directory)) { store in
                let (table, first, second) = try store.write { tx in
                    let table = try tx.createTable(Self.schema)
                    return (table, try tx.insertObject(into: table, values: [.int(1), .int(0), .list([])]),
                            try tx.insertObject(into: table, values: [.int(2), .int(0), .list([])]))
                }
                let tx = try store.beginWrite()
                try tx.setValue(.int(5), at: PropertyPath(table: table, object: first, column: 1))
                try tx.setValue(.int(6), at: PropertyPath(table: table, object: second, column: 1))
                try tx.setValue(.int(7), at: PropertyPath(table: table, object: first, column: 1))
                try tx.eraseObject(first, in: table)
                #expect(tx.instructions == [
                    .setValue(PropertyPath(table: table, object: first, column: 1), .int(5)),
                    .setValue(PropertyPath(table: table, object: second, column: 1), .int(6)),
                    .setValue(PropertyPath(table: table, object: first, column: 1), .int(7)),
                    .eraseObject(table, first),
                ])
                try tx.commit()
                #expect(store.currentSnapshot.table(table)?.value(of: first, column: 1) == nil)
                #expect(store.currentSnapshot.table(table)?.value(of: second, column: 1) == .int(6))
            }
        }
    }
}
