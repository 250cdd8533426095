import Testing
@testable import StrataEngine

/// `Snapshot.consistencyProblems(limit:)` (the logical half of `strata verify`) passes a store
/// written through transactions and names each kind of disagreement when one is made by hand.
@Suite("Consistency check of indexes and backlinks")
struct ConsistencyCheckTests {
    /// Dog (name primary key, breed indexed) and Person (dogs: list of Dog, home: embedded Home).
    private static func store() throws -> (Store, dogs: TableKey, people: TableKey, homes: TableKey) {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let (dogs, people, homes) = try store.write { transaction in
            let homes = try transaction.createTable(TableSchema(name: "Home", columns: [ColumnSchema("street", .string)],
                                                                isEmbedded: true))
            let dogs = try transaction.createTable(TableSchema(
                name: "Dog", columns: [ColumnSchema("name", .string), ColumnSchema("breed", .string, isIndexed: true)],
                primaryKey: "name"))
            let people = try transaction.createTable(TableSchema(name: "Person", columns: [
                ColumnSchema("dogs", .link, collection: .list, linkTarget: "Dog"),
                ColumnSchema("home", .link, linkTarget: "Home"),
            ]))
            let rex = try transaction.insertObject(into: dogs, values: [.string("Rex"), .string("collie")])
            let fido = try transaction.insertObject(into: dogs, values: [.string("Fido"), .string("pug")])
            let home = try transaction.insertObject(into: homes, values: [.string("Main St")])
            _ = try transaction.insertObject(into: people, values: [
                .list([link(dogs, rex), link(dogs, fido), link(dogs, rex)]), link(homes, home),
            ])
            return (dogs, people, homes)
        }
        return (store, dogs, people, homes)
    }

    @Test("a store written through transactions has no problems")
    func consistentStore() throws {
        let (store, _, _, _) = try Self.store()
        #expect(store.currentSnapshot.consistencyProblems().isEmpty)
    }

    @Test("a row the primary-key index or a secondary index does not find is named")
    func brokenIndexes() throws {
        let (store, dogs, _, _) = try Self.store()
        var snapshot = store.currentSnapshot
        var table = try #require(snapshot.tables[dogs])
        let rex = try #require(table.object(forPrimaryKey: .string("Rex")))
        table.reindex(column: 1, from: .string("collie"), to: .string("beagle"), key: rex)
        _ = table.primaryKeyIndex.removeValue(forKey: .string("Fido"))
        snapshot.tables[dogs] = table
        let problems = snapshot.consistencyProblems().map(\.description)
        #expect(problems.contains { $0.hasPrefix("Dog object") && $0.contains("the index of 'breed' does not find it") },
                "\(problems)")
        #expect(problems.contains { $0.contains("its primary key string(\"Fido\") finds nothing") }, "\(problems)")
    }

    @Test("backlinks that do not match the links, and an embedded object without its owner, are named")
    func brokenBacklinks() throws {
        let (store, dogs, _, homes) = try Self.store()
        var snapshot = store.currentSnapshot
        var table = try #require(snapshot.tables[dogs])
        let rex = try #require(table.object(forPrimaryKey: .string("Rex")))
        _ = table.backlinks.removeValue(forKey: rex)
        snapshot.tables[dogs] = table
        var homeTable = try #require(snapshot.tables[homes])
        let home = try #require(homeTable.objectKeys.first)
        _ = homeTable.backlinks.removeValue(forKey: home)
        snapshot.tables[homes] = homeTable
        let problems = snapshot.consistencyProblems().map(\.description)
        #expect(problems.contains { $0.hasPrefix("Dog object \(rex.rawValue): its backlinks (0) do not match the links to it (2)") },
                "\(problems)")
        #expect(problems.contains { $0.hasPrefix("Home object") && $0.contains("has 0 owners") }, "\(problems)")
    }
}
