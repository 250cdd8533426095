import Foundation
import StrataStorage
import StrataSupport
import StrataTestSupport
import Testing
@testable import StrataEngine

/// The primary-key index keeps a required `Int` primary key in an integer-keyed tree and every
/// other kind in a `Value`-keyed one; both must answer alike, survive checkpoints and reopening,
/// and refuse what does not fit.
@Suite("Primary-key index")
struct PrimaryKeyIndexTests {
    private static let required = TableSchema(name: "Required", columns: [ColumnSchema("id", .int),
                                                                           ColumnSchema("name", .string)],
                                              primaryKey: "id")
    private static let optional = TableSchema(name: "Optional", columns: [ColumnSchema("id", .int, isOptional: true),
                                                                           ColumnSchema("name", .string)],
                                              primaryKey: "id")
    private static let named = TableSchema(name: "Named", columns: [ColumnSchema("id", .string)], primaryKey: "id")

    @Test("a required Int key uses integer keys; optional Ints, strings and tables without a key use values")
    func kindFollowsTheSchema() {
        #expect(PrimaryKeyIndex.usesIntegers(Self.required))
        #expect(!PrimaryKeyIndex.usesIntegers(Self.optional))
        #expect(!PrimaryKeyIndex.usesIntegers(Self.named))
        #expect(!PrimaryKeyIndex.usesIntegers(TableSchema(name: "None", columns: [ColumnSchema("id", .int)])))
        var integers = PrimaryKeyIndex(for: Self.required)
        #expect(integers.admits(.int(3)) && !integers.admits(.null) && !integers.admits(.string("3")))
        integers.updateValue(ObjectKey(7), forKey: .int(3))
        #expect(integers[.int(3)] == ObjectKey(7) && integers[.double(3)] == nil && integers[.null] == nil)
        #expect(integers.removeValue(forKey: .string("3")) == nil && integers.count == 1)
        // A key of another kind (which callers refuse first) turns the index into a values index
        // holding every entry.
        integers.updateValue(ObjectKey(8), forKey: .string("x"))
        #expect(integers[.int(3)] == ObjectKey(7) && integers[.string("x")] == ObjectKey(8) && integers.count == 2)
        #expect(integers.admits(.null))
    }

    @Test("lookups agree with a dictionary through inserts, changes of key and deletes", arguments: [true, false])
    func agreesWithADictionary(optionalKey: Bool) throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let schema = optionalKey ? Self.optional : Self.required
        let table = try store.write { try $0.createTable(schema) }
        var random = SeededRandom(seed: 11)
        var model: [Int64: ObjectKey] = [:]
        var nullObject: ObjectKey?
        for _ in 0..<40 {
            try store.write { tx in
                for _ in 0..<50 {
                    let id = Int64(random.next() % 2_000) - 1_000
                    if let object = model[id] {
                        if random.next() % 2 == 0 {
                            try tx.eraseObject(object, in: table)
                            model[id] = nil
                        } else {
                            let moved = id + 5_000
                            guard model[moved] == nil else { continue }
                            try tx.setValue(.int(moved), at: path(table, object, 0))
                            model[id] = nil
                            model[moved] = object
                        }
                    } else {
                        model[id] = try tx.insertObject(into: table, values: [.int(id), .string("n\(id)")])
                    }
                }
                if optionalKey, nullObject == nil {
                    nullObject = try tx.insertObject(into: table, values: [.null, .string("none")])
                }
            }
        }
        let snapshot = try #require(store.currentSnapshot.table(table))
        for id in Int64(-1_000)...Int64(6_000) { #expect(snapshot.object(forPrimaryKey: .int(id)) == model[id]) }
        #expect(snapshot.object(forPrimaryKey: .null) == nullObject)
        #expect(snapshot.count == model.count + (nullObject == nil ? 0 : 1))
    }

    @Test("both kinds reopen from a checkpoint and verify page by page")
    func reopensFromPages() throws {
        try withTemporaryDirectory { directory in
            let configuration = StoreKind.fileNormal.configuration(in: directory)
            let tables = try withStore(configuration) { store in
                let tables = try store.write { tx in
                    let tables = try [Self.required, Self.optional, Self.named].map { try tx.createTable($0) }
                    for id in 0..<3_000 {
                        _ = try tx.insertObject(into: tables[0], values: [.int(Int64(id * 3)), .string("r\(id)")])
                        _ = try tx.insertObject(into: tables[1], values: [.int(Int64(id)), .string("o\(id)")])
                        _ = try tx.insertObject(into: tables[2], values: [.string("key-\(id)")])
                    }
                    _ = try tx.insertObject(into: tables[1], values: [.null, .string("none")])
                    return tables
                }
                try store.checkpoint()
                return tables
            }
            try withStore(configuration) { store in
                let pages = try store.verifyFile()
                #expect(pages > 0)
                let snapshot = store.currentSnapshot
                for id in stride(from: 0, to: 3_000, by: 7) {
                    #expect(snapshot.table(tables[0])?.object(forPrimaryKey: .int(Int64(id * 3))) != nil)
                    #expect(snapshot.table(tables[0])?.object(forPrimaryKey: .int(Int64(id * 3 + 1))) == nil)
                    #expect(snapshot.table(tables[1])?.object(forPrimaryKey: .int(Int64(id))) != nil)
                    #expect(snapshot.table(tables[2])?.object(forPrimaryKey: .string("key-\(id)")) != nil)
                }
                #expect(snapshot.table(tables[1])?.object(forPrimaryKey: .null) != nil)
            }
        }
    }

    @Test("an instruction giving a required Int key a value of another kind is refused before it changes anything")
    func applyRefusesAnotherKind() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let table = try store.write { try $0.createTable(Self.required) }
        let object = try store.write { try $0.insertObject(into: table, values: [.int(1), .string("a")]) }
        var snapshot = store.currentSnapshot
        let before = contents(of: snapshot)
        expectStrataError(.invalidInput) {
            try snapshot.apply(.insertObject(table, ObjectKey(50), [.string("1"), .string("b")]))
        }
        expectStrataError(.invalidInput) { try snapshot.apply(.setValue(path(table, object, 0), .null)) }
        #expect(contents(of: snapshot) == before)
        #expect(snapshot.table(table)?.object(forPrimaryKey: .int(1)) == object)
    }
}
