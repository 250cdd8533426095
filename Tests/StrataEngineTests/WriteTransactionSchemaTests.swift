import Testing
@testable import StrataEngine

/// Schema changes in a write transaction keep rows, backlinks and indexes consistent, and
/// replay identically from the log and a checkpoint.
@Suite("Write transactions: schema changes")
struct WriteTransactionSchemaTests {
    @Test("removing, adding and renaming columns keeps backlinks, primary keys and indexes consistent across reopening")
    func columnChanges() throws {
        try withTemporaryDirectory { directory in
            let configuration = StoreConfiguration.file(directory.file("schema.strata"), durability: .normal)
            var expected: [String: [ObjectKey: Row]] = [:]
            var expectedBacklinks: [String: [ObjectKey: [Backlink]]] = [:]
            var expectedSchemas: [TableKey: TableSchema] = [:]
            try withStore(configuration) { store in
                let (owner, thing) = try store.write { tx in
                    let thing = try tx.createTable(TableSchema(name: "Thing", columns: [ColumnSchema("label", .string)]))
                    let owner = try tx.createTable(TableSchema(
                        name: "Owner",
                        columns: [
                            ColumnSchema("code", .int), ColumnSchema("name", .string, isIndexed: true),
                            ColumnSchema("one", .link, linkTarget: "Thing"),
                            ColumnSchema("many", .link, collection: .list, linkTarget: "Thing"),
                            ColumnSchema("score", .int),
                        ],
                        primaryKey: "code"))
                    return (owner, thing)
                }
                let things = try store.write { tx in
                    try (0..<3).map { try tx.insertObject(into: thing, values: [.string("t\($0)")]) }
                }
                let owners = try store.write { tx -> [ObjectKey] in
                    var keys: [ObjectKey] = []
                    for index in 0..<4 {
                        let values: [Value] = [
                            .int(Int64(index)), .string("n\(index % 2)"), link(thing, things[index % 3]),
                            .list([link(thing, things[0]), link(thing, things[(index + 1) % 3])]), .int(Int64(index % 2)),
                        ]
                        keys.append(try tx.insertObject(into: owner, values: values))
                    }
                    return keys
                }

                try store.write { tx in try tx.removeColumn(1, from: owner) }  // name: later columns shift down
                var snapshot = store.currentSnapshot
                var table = try #require(snapshot.table(owner))
                #expect(table.schema.columns.map(\.name) == ["code", "one", "many", "score"])
                #expect(table.row(owners[0])?.values
                        == [.int(0), link(thing, things[0]), .list([link(thing, things[0]), link(thing, things[1])]), .int(0)])
                #expect(snapshot.table(thing)?.backlinks(to: things[1]) == [
                    Backlink(table: owner, column: 1, object: owners[1]),
                    Backlink(table: owner, column: 2, object: owners[0]),
                    Backlink(table: owner, column: 2, object: owners[3]),
                ])
                #expect(table.object(forPrimaryKey: .int(2)) == owners[2])

                try store.write { tx in
                    try tx.setIndexed(true, column: 3, of: owner)
                    try tx.addColumn(ColumnSchema("extra", .link, linkTarget: "Thing"), to: owner, fill: link(thing, things[2]))
                    try tx.renameColumn(0, of: owner, to: "id")
                }
                snapshot = store.currentSnapshot
                table = try #require(snapshot.table(owner))
                #expect(table.schema.primaryKey == "id")
                #expect(table.object(forPrimaryKey: .int(3)) == owners[3])
                #expect(table.objects(where: 3, equals: .int(1)) == [owners[1], owners[3]])
                #expect(snapshot.table(thing)?.backlinks(to: things[2]).filter { $0.column == 4 }.count == 4)

                try store.write { tx in
                    expectStrataError(.duplicatePrimaryKey) { try tx.setPrimaryKey("score", of: owner) }
                    try tx.eraseObject(things[2], in: thing)
                }
                table = try #require(store.currentSnapshot.table(owner))
                #expect(table.row(owners[1])?[4] == .null)
                #expect(table.row(owners[2])?[1] == .null)

                expected = contents(of: store.currentSnapshot)
                expectedBacklinks = backlinkState(of: store.currentSnapshot)
                expectedSchemas = schemas(of: store.currentSnapshot)
            }
            for pass in ["log replay", "checkpoint"] {
                try withStore(configuration) { store in
                    let snapshot = store.currentSnapshot
                    #expect(contents(of: snapshot) == expected, "\(pass)")
                    #expect(backlinkState(of: snapshot) == expectedBacklinks, "\(pass)")
                    #expect(schemas(of: snapshot) == expectedSchemas, "\(pass)")
                    let table = try #require(snapshot.table(named: "Owner"))
                    #expect(table.objects(where: 3, equals: .int(1)) == table.scan(column: 3, equals: .int(1)), "\(pass)")
                    #expect(table.object(forPrimaryKey: .int(1)) != nil, "\(pass)")
                    if pass == "log replay" { try store.checkpoint() }
                }
            }
        }
    }

    @Test("a new link column cannot be filled with one embedded object for several existing objects")
    func addColumnFillCannotShareAnEmbeddedObject() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let (parent, child) = try store.write { tx in
            (try tx.createTable(TableSchema(name: "Parent", columns: [ColumnSchema("n", .int)])),
             try tx.createTable(TableSchema(name: "Child", columns: [ColumnSchema("n", .int)], isEmbedded: true)))
        }
        let kid = try store.write { tx in
            _ = try tx.insertObject(into: parent, values: [.int(1)])
            _ = try tx.insertObject(into: parent, values: [.int(2)])
            return try tx.insertObject(into: child, values: [.int(0)])
        }
        let tx = try store.beginWrite()
        expectStrataError(.invalidInput, "two parents would own the same embedded object") {
            try tx.addColumn(ColumnSchema("kid", .link, linkTarget: "Child"), to: parent, fill: link(child, kid))
        }
        #expect(tx.snapshot.table(child)?.backlinkCount(to: kid) ?? 0 <= 1,
                "an embedded object must never have more than one owner")
        tx.cancel()
    }

    @Test("removing a table erases its objects first, so links into it are removed and its embedded objects erased")
    func removingATable() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let (target, source, child) = try store.write { tx in
            let child = try tx.createTable(TableSchema(name: "Child", columns: [ColumnSchema("n", .int)], isEmbedded: true))
            let target = try tx.createTable(TableSchema(
                name: "Target", columns: [ColumnSchema("kid", .link, linkTarget: "Child")]))
            let source = try tx.createTable(TableSchema(
                name: "Source", columns: [ColumnSchema("to", .link, collection: .list, linkTarget: "Target")]))
            return (target, source, child)
        }
        let from = try store.write { tx in
            let kid = try tx.insertObject(into: child, values: [.int(1)])
            let targetKey = try tx.insertObject(into: target, values: [link(child, kid)])
            return try tx.insertObject(into: source, values: [.list([link(target, targetKey), link(target, targetKey)])])
        }
        try store.write { tx in try tx.removeTable(target) }
        let snapshot = store.currentSnapshot
        #expect(snapshot.table(target) == nil)
        #expect(snapshot.table(named: "Target") == nil)
        #expect(snapshot.table(source)?.row(from)?[0] == .list([]))
        #expect(snapshot.table(child)?.count == 0)
    }
}
