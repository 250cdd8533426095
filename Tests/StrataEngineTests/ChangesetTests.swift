import Testing
@testable import StrataEngine

/// What a commit records: its exact instructions, the per-table summary derived from them, and
/// how long the store keeps changesets for pinned readers.
@Suite("Changesets")
struct ChangesetTests {
    /// Person: 0 id (int, primary key), 1 name (string), 2 age (optional int),
    /// 3 tags (set of string), 4 scores (list of int), 5 attrs (dictionary of int).
    private static let personSchema = TableSchema(
        name: "Person",
        columns: [
            ColumnSchema("id", .int),
            ColumnSchema("name", .string),
            ColumnSchema("age", .int, isOptional: true),
            ColumnSchema("tags", .string, collection: .set),
            ColumnSchema("scores", .int, collection: .list),
            ColumnSchema("attrs", .int, collection: .dictionary),
        ],
        primaryKey: "id")

    private static func person(_ id: Int64, _ name: String) -> [Value] {
        [.int(id), .string(name), .null, .set([]), .list([]), .dictionary(ValueMap())]
    }

    /// Opens an in-memory store with the Person table.
    private func makeStore() throws -> (Store, TableKey) {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let people = try store.write { tx in try tx.createTable(Self.personSchema) }
        return (store, people)
    }

    @Test("a commit's changeset holds exactly the instructions it applied, in order, with its version")
    func exactInstructions() throws {
        let (store, people) = try makeStore()
        let pin = try store.pin()
        let tx = try store.beginWrite()
        let key = try tx.insertObject(
            into: people,
            values: [.int(1), .string("Ann"), .null, .list([.string("b"), .string("a"), .string("b")]), .list([]),
                     .dictionary(ValueMap())])
        try tx.setValue(.string("Anna"), at: path(people, key, 1))
        try tx.setValue(.int(36), at: path(people, key, 2))
        try tx.listAppend(.int(5), in: path(people, key, 4))
        try tx.listInsert(.int(4), at: 0, in: path(people, key, 4))
        try tx.listMove(from: 0, to: 1, in: path(people, key, 4))
        #expect(try tx.setInsert(.string("c"), in: path(people, key, 3)))
        #expect(try !tx.setInsert(.string("a"), in: path(people, key, 3)), "already there: nothing is recorded")
        #expect(try tx.setErase(.string("b"), in: path(people, key, 3)))
        #expect(try !tx.setErase(.string("zzz"), in: path(people, key, 3)), "absent: nothing is recorded")
        try tx.dictionarySet(.int(1), forKey: "x", in: path(people, key, 5))
        #expect(try !tx.dictionaryErase(key: "nope", in: path(people, key, 5)))
        let version = try tx.commit()

        let changesets = try #require(store.changesets(after: pin.version))
        #expect(changesets.count == 1)
        let changeset = try #require(changesets.first)
        #expect(changeset.version == version)
        #expect(version == pin.version + 1)
        #expect(changeset.instructions == [
            // The set column's elements were normalized: sorted, without duplicates.
            .insertObject(people, key, [.int(1), .string("Ann"), .null, .set([.string("a"), .string("b")]), .list([]),
                                        .dictionary(ValueMap())]),
            .setValue(path(people, key, 1), .string("Anna")),
            .setValue(path(people, key, 2), .int(36)),
            .list(path(people, key, 4), .insert(index: 0, value: .int(5))),
            .list(path(people, key, 4), .insert(index: 0, value: .int(4))),
            .list(path(people, key, 4), .move(from: 0, to: 1)),
            .set(path(people, key, 3), .insert(.string("c"))),
            .set(path(people, key, 3), .erase(.string("b"))),
            .dictionary(path(people, key, 5), .set(key: "x", value: .int(1))),
        ])
        #expect(changeset.summary.tables.keys.sorted() == [people])
        #expect(changeset.summary[people].insertions == [key])
        #expect(changeset.summary[people].deletions == [])
        #expect(changeset.summary[people].modifications == [:])
        #expect(!changeset.summary[people].schemaChanged)

        let row = try #require(store.currentSnapshot.table(people)?.row(key))
        #expect(row.values == [.int(1), .string("Anna"), .int(36), .set([.string("a"), .string("c")]),
                               .list([.int(5), .int(4)]), .dictionary(ValueMap([("x", .int(1))]))])
        withExtendedLifetime(pin) {}
    }

    @Test("the summary lists an inserted-then-modified object only as inserted, an inserted-then-erased one nowhere, and a modified-then-erased one only as deleted")
    func summaryRules() throws {
        let (store, people) = try makeStore()
        let (a, b, c) = try store.write { tx in
            (try tx.insertObject(into: people, values: Self.person(1, "a")),
             try tx.insertObject(into: people, values: Self.person(2, "b")),
             try tx.insertObject(into: people, values: Self.person(3, "c")))
        }
        let pin = try store.pin()
        let (d, e) = try store.write { tx in
            let d = try tx.insertObject(into: people, values: Self.person(4, "d"))
            try tx.setValue(.string("d2"), at: path(people, d, 1))
            try tx.listAppend(.int(1), in: path(people, d, 4))

            let e = try tx.insertObject(into: people, values: Self.person(5, "e"))
            try tx.setValue(.int(50), at: path(people, e, 2))
            try tx.eraseObject(e, in: people)

            try tx.setValue(.string("a2"), at: path(people, a, 1))
            try tx.eraseObject(a, in: people)

            try tx.setValue(.string("b2"), at: path(people, b, 1))
            try tx.setValue(.int(20), at: path(people, b, 2))
            try tx.listAppend(.int(7), in: path(people, b, 4))
            try tx.dictionarySet(.int(3), forKey: "k", in: path(people, b, 5))
            try tx.setValue(.string("b3"), at: path(people, b, 1))

            try tx.eraseObject(c, in: people)
            return (d, e)
        }
        let changeset = try #require(store.changesets(after: pin.version)?.first)
        let summary = changeset.summary[people]
        #expect(summary.insertions == [d])
        #expect(summary.deletions == [a, c])
        #expect(summary.modifications == [b: [1, 2, 4, 5]])
        #expect(!summary.insertions.contains(e) && !summary.deletions.contains(e) && summary.modifications[e] == nil)
        #expect(changeset.summary.tables.keys.sorted() == [people])
        #expect(!summary.isEmpty)
        withExtendedLifetime(pin) {}
    }

    @Test("changesets(after:) returns every changeset from a pinned version to the newest and nil once no pin needs them",
          arguments: StoreKind.allCases)
    func changesetsAfterPinnedVersion(kind: StoreKind) throws {
        try withTemporaryDirectory { directory in
            try withStore(kind.configuration(in: directory)) { store in
                let people = try store.write { tx in try tx.createTable(Self.personSchema) }
                try store.write { tx in _ = try tx.insertObject(into: people, values: Self.person(0, "zero")) }
                #expect(store.statistics.retainedChangesets == 0, "nothing is kept without a pin")

                var pin: PinnedSnapshot? = try store.pin()
                let pinned = try #require(pin?.version)
                var inserted: [UInt64: ObjectKey] = [:]
                for id in 1...4 {
                    let tx = try store.beginWrite()
                    let key = try tx.insertObject(into: people, values: Self.person(Int64(id), "p\(id)"))
                    inserted[try tx.commit()] = key
                }
                let newest = store.currentVersion
                #expect(newest == pinned + 4)

                let all = try #require(store.changesets(after: pinned))
                #expect(all.map(\.version) == Array(pinned + 1...newest))
                for changeset in all {
                    let key = try #require(inserted[changeset.version])
                    let id = Int64(changeset.version - pinned)
                    #expect(changeset.instructions == [.insertObject(people, key, Self.person(id, "p\(id)"))])
                    #expect(changeset.summary[people].insertions == [key])
                }
                #expect(store.changesets(after: pinned + 2)?.map(\.version) == [pinned + 3, pinned + 4])
                #expect(store.changesets(after: newest)?.isEmpty == true)
                #expect(store.changesets(after: pinned - 1) == nil, "the commit before the pin was never kept")
                #expect(store.statistics.retainedChangesets == 4)
                #expect(store.statistics.pinnedVersions == 1)

                pin = nil
                #expect(store.statistics.pinnedVersions == 0)
                #expect(store.statistics.retainedChangesets == 0)
                #expect(store.changesets(after: pinned) == nil)

                try store.write { tx in _ = try tx.insertObject(into: people, values: Self.person(9, "nine")) }
                #expect(store.changesets(after: newest) == nil, "unpinned commits are not kept")
                #expect(store.statistics.retainedChangesets == 0)
            }
        }
    }

    @Test("releasing the oldest of several pins trims the changesets to those the remaining pins need")
    func trimmingFollowsTheOldestPin() throws {
        let (store, people) = try makeStore()
        func insert(_ id: Int64) throws {
            try store.write { tx in _ = try tx.insertObject(into: people, values: Self.person(id, "p\(id)")) }
        }
        var first: PinnedSnapshot? = try store.pin()
        var firstAgain: PinnedSnapshot? = try store.pin()
        let v1 = try #require(first?.version)
        #expect(firstAgain?.version == v1)
        try insert(1)
        try insert(2)
        var second: PinnedSnapshot? = try store.pin()
        let v3 = try #require(second?.version)
        #expect(v3 == v1 + 2)
        try insert(3)
        try insert(4)
        #expect(store.changesets(after: v1)?.map(\.version) == [v1 + 1, v1 + 2, v1 + 3, v1 + 4])
        #expect(store.statistics.pinnedVersions == 2)

        first = nil
        #expect(store.changesets(after: v1)?.count == 4, "a second pin of the same version still holds it")
        firstAgain = nil
        #expect(store.changesets(after: v1) == nil)
        #expect(store.changesets(after: v1 + 1) == nil)
        #expect(store.changesets(after: v3)?.map(\.version) == [v3 + 1, v3 + 2])
        #expect(store.statistics.retainedChangesets == 2)
        #expect(store.statistics.pinnedVersions == 1)

        second = nil
        #expect(store.statistics.retainedChangesets == 0)
        #expect(store.changesets(after: v3) == nil)
        #expect(first == nil && firstAgain == nil && second == nil)
    }

    @Test("a transaction without instructions commits nothing: no new version and no changeset")
    func emptyTransactionCommitsNothing() throws {
        let (store, people) = try makeStore()
        let key = try store.write { tx in try tx.insertObject(into: people, values: Self.person(1, "a")) }
        let pin = try store.pin()
        let version = try store.beginWrite().commit()
        #expect(version == pin.version)
        // Operations that change nothing record nothing either, so their commit is empty too.
        let tx = try store.beginWrite()
        #expect(try !tx.setErase(.string("x"), in: path(people, key, 3)))
        #expect(try !tx.dictionaryErase(key: "x", in: path(people, key, 5)))
        try tx.listClear(in: path(people, key, 4))
        try tx.setClear(in: path(people, key, 3))
        try tx.dictionaryClear(in: path(people, key, 5))
        #expect(tx.instructions.isEmpty)
        #expect(try tx.commit() == pin.version)
        #expect(store.currentVersion == pin.version)
        #expect(store.changesets(after: pin.version)?.isEmpty == true)
        withExtendedLifetime(pin) {}
    }

    @Test("after a column is removed in the same commit, modified column indices refer to the schema at the end of the commit")
    func summaryColumnsFollowTheFinalSchema() throws {
        let (store, people) = try makeStore()
        let key = try store.write { tx in try tx.insertObject(into: people, values: Self.person(1, "a")) }
        let pin = try store.pin()
        try store.write { tx in
            try tx.setValue(.int(30), at: path(people, key, 2))     // age: column 2 before, 1 after
            try tx.listAppend(.int(1), in: path(people, key, 4))    // scores: column 4 before, 3 after
            try tx.removeColumn(1, from: people)                    // removes name
        }
        let schema = try #require(store.currentSnapshot.table(people)?.schema)
        #expect(schema.columns.map(\.name) == ["id", "age", "tags", "scores", "attrs"])
        let summary = try #require(store.changesets(after: pin.version)?.first?.summary[people])
        #expect(summary.schemaChanged)
        #expect(summary.modifications == [key: [schema.columnIndex("age")!, schema.columnIndex("scores")!]])
        withExtendedLifetime(pin) {}
    }

    @Test("schema changes are summarized as schema changes of their table")
    func schemaChangesAreSummarized() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let pin = try store.pin()
        let people = try store.write { tx in
            let people = try tx.createTable(Self.personSchema)
            try tx.addColumn(ColumnSchema("nick", .string, isOptional: true), to: people)
            return people
        }
        let changeset = try #require(store.changesets(after: pin.version)?.first)
        #expect(changeset.instructions == [
            .createTable(people, Self.personSchema),
            .addColumn(people, ColumnSchema("nick", .string, isOptional: true), fill: .null),
        ])
        #expect(changeset.summary[people].schemaChanged)
        #expect(changeset.summary[people].insertions.isEmpty)
        withExtendedLifetime(pin) {}
    }
}
