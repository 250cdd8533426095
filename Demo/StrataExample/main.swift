// A small tour of the Strata engine: open a durable store, create a table, write, read back.
// Run it twice: the second run finds the first run's people already there.
import Foundation
import Strata

let path = CommandLine.arguments.dropFirst().first ?? FileManager.default.temporaryDirectory
    .appendingPathComponent("strata-example.strata").path

do {
    let store = try Store.open(.file(path, durability: .full))
    print("opened \(path) at version \(store.currentVersion)")

    let people = try store.write { transaction -> TableKey in
        if let existing = transaction.snapshot.tableKey(named: "Person") { return existing }
        return try transaction.createTable(TableSchema(
            name: "Person",
            columns: [
                ColumnSchema("id", .int),
                ColumnSchema("name", .string, isIndexed: true),
                ColumnSchema("tags", .string, collection: .list),
            ],
            primaryKey: "id"))
    }

    let nextID = Int64(store.currentSnapshot.table(people)!.count + 1)
    let version = try store.write { transaction -> UInt64 in
        let object = try transaction.insertObject(
            into: people, values: [.int(nextID), .string("person-\(nextID)"), .list([])])
        try transaction.listAppend(.string("example"), in: PropertyPath(table: people, object: object, column: 2))
        return transaction.baseVersion + 1
    }
    print("committed version \(version) (durable: fdatasync before returning)")

    let snapshot = store.currentSnapshot
    let table = snapshot.table(people)!
    table.forEachObject { key, row in
        print("  \(key): id=\(row[0]) name=\(row[1]) tags=\(row[2])")
    }
    if let key = table.object(forPrimaryKey: .int(nextID)) {
        print("primary-key lookup of \(nextID) → \(key)")
    }
} catch {
    print("error: \(error)")
    exit(1)
}
