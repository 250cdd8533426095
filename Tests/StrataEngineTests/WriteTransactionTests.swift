import StrataSupport
import Testing
@testable import StrataEngine

/// The write transaction's rules: validation that throws without changing anything, and the
/// cascades it records explicitly as instructions (embedded objects erased with their owner,
/// links to an erased object removed).
@Suite("Write transactions")
struct WriteTransactionTests {
    /// The tables every test here uses, created in one in-memory store.
    struct Fixture {
        let store: Store
        /// Person: 0 id (int, primary key), 1 name (string), 2 age (optional int).
        let person: TableKey
        /// Child (embedded): 0 value (int), 1 inner (link to Child).
        let child: TableKey
        /// Parent: 0 name (string), 1 child (link to Child), 2 children (list of links to Child).
        let parent: TableKey
        /// Target: 0 name (string).
        let target: TableKey
        /// Source: 0 single (link to Target), 1 many (list of links), 2 unique (set of links),
        /// 3 map (dictionary of links), 4 any (mixed).
        let source: TableKey

        init() throws {
            store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
            (person, child, parent, target, source) = try store.write { tx in
                let person = try tx.createTable(TableSchema(
                    name: "Person",
                    columns: [ColumnSchema("id", .int), ColumnSchema("name", .string),
                              ColumnSchema("age", .int, isOptional: true)],
                    primaryKey: "id"))
                let child = try tx.createTable(TableSchema(
                    name: "Child",
                    columns: [ColumnSchema("value", .int), ColumnSchema("inner", .link, linkTarget: "Child")],
                    isEmbedded: true))
                let parent = try tx.createTable(TableSchema(
                    name: "Parent",
                    columns: [ColumnSchema("name", .string), ColumnSchema("child", .link, linkTarget: "Child"),
                              ColumnSchema("children", .link, collection: .list, linkTarget: "Child")]))
                let target = try tx.createTable(TableSchema(name: "Target", columns: [ColumnSchema("name", .string)]))
                let source = try tx.createTable(TableSchema(
                    name: "Source",
                    columns: [
                        ColumnSchema("single", .link, linkTarget: "Target"),
                        ColumnSchema("many", .link, collection: .list, linkTarget: "Target"),
                        ColumnSchema("unique", .link, collection: .set, linkTarget: "Target"),
                        ColumnSchema("map", .link, collection: .dictionary, linkTarget: "Target"),
                        ColumnSchema("any", .mixed),
                    ]))
                return (person, child, parent, target, source)
            }
        }

        var snapshot: Snapshot { store.currentSnapshot }

        func emptySource() -> [Value] { [.null, .list([]), .set([]), .dictionary(ValueMap()), .null] }

        /// Inserts targets named `names` and returns their keys.
        func insertTargets(_ names: [String]) throws -> [ObjectKey] {
            try store.write { tx in
                try names.map { try tx.insertObject(into: target, values: [.string($0)]) }
            }
        }

        /// Erases `object` in a transaction of its own and returns the transaction's instructions.
        func erase(_ object: ObjectKey, in table: TableKey) throws -> [Instruction] {
            let tx = try store.beginWrite()
            try tx.eraseObject(object, in: table)
            let instructions = tx.instructions
            try tx.commit()
            return instructions
        }
    }

    // MARK: - Validation

    @Test("a value of the wrong type throws invalidInput and records nothing")
    func wrongTypeIsRejected() throws {
        let fixture = try Fixture()
        let tx = try fixture.store.beginWrite()
        let key = try tx.insertObject(into: fixture.person, values: [.int(1), .string("Ann"), .null])
        let recorded = tx.instructions
        let before = contents(of: tx.snapshot)

        expectStrataError(.invalidInput) {
            try tx.insertObject(into: fixture.person, values: [.int(2), .int(3), .null])
        }
        expectStrataError(.invalidInput) {
            try tx.insertObject(into: fixture.person, values: [.string("2"), .string("Bob"), .null])
        }
        expectStrataError(.invalidInput, "too few values") {
            try tx.insertObject(into: fixture.person, values: [.int(2), .string("Bob")])
        }
        expectStrataError(.invalidInput) { try tx.setValue(.double(1.5), at: path(fixture.person, key, 2)) }
        expectStrataError(.invalidInput, "a list where a single value belongs") {
            try tx.setValue(.list([.int(1)]), at: path(fixture.person, key, 2))
        }
        expectStrataError(.invalidInput, "a string in a list of links") {
            try tx.insertObject(into: fixture.parent, values: [.string("p"), .null, .list([.string("x")])])
        }
        expectStrataError(.invalidInput, "no such column") { try tx.setValue(.int(1), at: path(fixture.person, key, 7)) }
        let missingObject = expectStrataError(.invalidInput, "no such object") {
            try tx.setValue(.int(1), at: path(fixture.person, ObjectKey(99), 2))
        }
        #expect(missingObject?.message == "Person has no object O99")
        expectStrataError(.invalidInput, "no such table") {
            try tx.insertObject(into: TableKey(999), values: [])
        }

        #expect(tx.instructions == recorded)
        #expect(contents(of: tx.snapshot) == before)
        // The transaction is still usable after the rejected calls.
        try tx.setValue(.int(40), at: path(fixture.person, key, 2))
        try tx.commit()
        #expect(fixture.snapshot.table(fixture.person)?.row(key)?.values == [.int(1), .string("Ann"), .int(40)])
        #expect(fixture.snapshot.table(fixture.person)?.count == 1)
    }

    @Test("null in a non-optional column throws invalidInput; an optional column accepts it")
    func nullInRequiredColumnIsRejected() throws {
        let fixture = try Fixture()
        let tx = try fixture.store.beginWrite()
        let error = expectStrataError(.invalidInput) {
            try tx.insertObject(into: fixture.person, values: [.int(1), .null, .null])
        }
        #expect(error?.message == "column name is not optional")
        #expect(tx.instructions.isEmpty)
        let key = try tx.insertObject(into: fixture.person, values: [.int(1), .string("a"), .null])
        expectStrataError(.invalidInput) { try tx.setValue(.null, at: path(fixture.person, key, 1)) }
        expectStrataError(.invalidInput) { try tx.setValue(.null, at: path(fixture.person, key, 0)) }
        try tx.setValue(.int(3), at: path(fixture.person, key, 2))
        try tx.setValue(.null, at: path(fixture.person, key, 2))
        #expect(tx.snapshot.table(fixture.person)?.row(key)?.values == [.int(1), .string("a"), .null])
        tx.cancel()
    }

    @Test("an insert checks its scalars against the columns as they are after columns are added and removed")
    func scalarChecksFollowTheSchema() throws {
        let fixture = try Fixture()
        let tx = try fixture.store.beginWrite()
        try tx.addColumn(ColumnSchema("score", .double), to: fixture.person, fill: .double(0))
        try tx.removeColumn(1, from: fixture.person)  // name: now id, age, score
        let schema = try #require(tx.snapshot.table(fixture.person)?.schema)
        #expect(schema.scalarChecks == [ScalarCheck(type: .int, isOptional: false), ScalarCheck(type: .int, isOptional: true),
                                        ScalarCheck(type: .double, isOptional: false)])
        let wrongType = expectStrataError(.invalidInput) {
            try tx.insertObject(into: fixture.person, values: [.int(1), .null, .string("high")])
        }
        #expect(wrongType?.message.hasPrefix("column score holds double, not") == true)
        let null = expectStrataError(.invalidInput) { try tx.insertObject(into: fixture.person, values: [.int(1), .null, .null]) }
        #expect(null?.message == "column score is not optional")
        let key = try tx.insertObject(into: fixture.person, values: [.int(1), .null, .double(2.5)])
        #expect(tx.snapshot.table(fixture.person)?.row(key)?.values == [.int(1), .null, .double(2.5)])
        // Links, mixed values and collections have no scalar check: they take the full one.
        let source = try #require(tx.snapshot.table(fixture.source)?.schema)
        #expect(source.scalarChecks.allSatisfy { $0 == nil })
        tx.cancel()
    }

    @Test("the columns that may hold links follow the schema, and an insertion and an erasure keep backlinks through them")
    func linkColumnsFollowTheSchema() throws {
        let fixture = try Fixture()
        let source = try #require(fixture.store.currentSnapshot.table(fixture.source)?.schema)
        #expect(source.linkColumns == [0, 1, 2, 3, 4])
        #expect(try #require(fixture.store.currentSnapshot.table(fixture.person)?.schema).linkColumns.isEmpty)

        let tx = try fixture.store.beginWrite()
        let target = try tx.insertObject(into: fixture.target, values: [.string("t")])
        try tx.addColumn(ColumnSchema("best", .link, isOptional: true, linkTarget: "Target"), to: fixture.person, fill: .null)
        try tx.removeColumn(1, from: fixture.person)  // name: now id, age, best
        #expect(try #require(tx.snapshot.table(fixture.person)?.schema).linkColumns == [2])
        let person = try tx.insertObject(into: fixture.person,
                                         values: [.int(1), .null, .link(ObjectLink(table: fixture.target, key: target))])
        #expect(tx.snapshot.table(fixture.target)?.backlinks(to: target).count == 1)
        try tx.eraseObject(person, in: fixture.person)
        #expect(tx.snapshot.table(fixture.target)?.backlinks(to: target).isEmpty == true)
        tx.cancel()
    }

    @Test("a duplicate primary key throws duplicatePrimaryKey, on insert and on update, within and across transactions")
    func duplicatePrimaryKeyIsRejected() throws {
        let fixture = try Fixture()
        let (one, two) = try fixture.store.write { tx in
            (try tx.insertObject(into: fixture.person, values: [.int(1), .string("a"), .null]),
             try tx.insertObject(into: fixture.person, values: [.int(2), .string("b"), .null]))
        }
        let tx = try fixture.store.beginWrite()
        let error = expectStrataError(.duplicatePrimaryKey) {
            try tx.insertObject(into: fixture.person, values: [.int(1), .string("again"), .null])
        }
        #expect(error?.message.contains("existing primary key") == true)
        expectStrataError(.duplicatePrimaryKey) { try tx.setValue(.int(1), at: path(fixture.person, two, 0)) }
        #expect(tx.instructions.isEmpty)

        // Setting a primary key to its own value is not a conflict.
        try tx.setValue(.int(2), at: path(fixture.person, two, 0))
        // Within the transaction: a key inserted earlier conflicts, an erased one is free again.
        let three = try tx.insertObject(into: fixture.person, values: [.int(3), .string("c"), .null])
        expectStrataError(.duplicatePrimaryKey) {
            try tx.insertObject(into: fixture.person, values: [.int(3), .string("c2"), .null])
        }
        try tx.eraseObject(one, in: fixture.person)
        let newOne = try tx.insertObject(into: fixture.person, values: [.int(1), .string("new"), .null])
        #expect(newOne != one)
        try tx.commit()

        let table = try #require(fixture.snapshot.table(fixture.person))
        #expect(table.count == 3)
        #expect(table.object(forPrimaryKey: .int(1)) == newOne)
        #expect(table.object(forPrimaryKey: .int(2)) == two)
        #expect(table.object(forPrimaryKey: .int(3)) == three)
        #expect(table.row(newOne)?[1] == .string("new"))
    }

    @Test("a link to a missing object or to the wrong table throws invalidInput")
    func linkToMissingObjectIsRejected() throws {
        let fixture = try Fixture()
        let targets = try fixture.insertTargets(["t0", "t1"])
        let personKey = try fixture.store.write { tx in
            try tx.insertObject(into: fixture.person, values: [.int(1), .string("a"), .null])
        }
        _ = try fixture.erase(targets[1], in: fixture.target)

        let tx = try fixture.store.beginWrite()
        var values = fixture.emptySource()
        values[0] = link(fixture.target, ObjectKey(42))
        expectStrataError(.invalidInput, "never existed") { try tx.insertObject(into: fixture.source, values: values) }
        values[0] = link(fixture.target, targets[1])
        expectStrataError(.invalidInput, "erased") { try tx.insertObject(into: fixture.source, values: values) }
        values[0] = link(fixture.person, personKey)
        expectStrataError(.invalidInput, "wrong table") { try tx.insertObject(into: fixture.source, values: values) }
        values[0] = .null
        values[4] = .list([link(fixture.target, ObjectKey(42))])
        expectStrataError(.invalidInput, "nested in a mixed list") {
            try tx.insertObject(into: fixture.source, values: values)
        }
        let source = try tx.insertObject(into: fixture.source, values: fixture.emptySource())
        let recorded = tx.instructions
        expectStrataError(.invalidInput) {
            try tx.listAppend(link(fixture.target, targets[1]), in: path(fixture.source, source, 1))
        }
        expectStrataError(.invalidInput) {
            try tx.setInsert(link(fixture.target, ObjectKey(42)), in: path(fixture.source, source, 2))
        }
        expectStrataError(.invalidInput) {
            try tx.dictionarySet(link(fixture.target, ObjectKey(42)), forKey: "k", in: path(fixture.source, source, 3))
        }
        #expect(tx.instructions == recorded)
        try tx.setValue(link(fixture.target, targets[0]), at: path(fixture.source, source, 0))
        try tx.commit()
        #expect(fixture.snapshot.table(fixture.target)?.backlinks(to: targets[0])
                == [Backlink(table: fixture.source, column: 0, object: source)])
    }

    @Test("linking an embedded object that already has an owner throws invalidInput")
    func linkingAnOwnedEmbeddedObjectIsRejected() throws {
        let fixture = try Fixture()
        let (child, owner, other) = try fixture.store.write { tx in
            let child = try tx.insertObject(into: fixture.child, values: [.int(1), .null])
            let owner = try tx.insertObject(into: fixture.parent, values: [.string("owner"), link(fixture.child, child), .list([])])
            let other = try tx.insertObject(into: fixture.parent, values: [.string("other"), .null, .list([])])
            return (child, owner, other)
        }
        let tx = try fixture.store.beginWrite()
        let error = expectStrataError(.invalidInput) {
            try tx.insertObject(into: fixture.parent, values: [.string("thief"), link(fixture.child, child), .list([])])
        }
        #expect(error?.message.hasPrefix("Can't link to an embedded object that is already managed") == true)
        expectStrataError(.invalidInput) { try tx.setValue(link(fixture.child, child), at: path(fixture.parent, other, 1)) }
        expectStrataError(.invalidInput) { try tx.listAppend(link(fixture.child, child), in: path(fixture.parent, other, 2)) }
        expectStrataError(.invalidInput, "the owner itself cannot link it a second time") {
            try tx.listAppend(link(fixture.child, child), in: path(fixture.parent, owner, 2))
        }
        expectStrataError(.invalidInput, "a mixed value cannot link to an embedded object") {
            var values = fixture.emptySource()
            values[4] = link(fixture.child, child)
            try tx.insertObject(into: fixture.source, values: values)
        }
        #expect(tx.instructions.isEmpty)
        // Setting the owner's link to the child it already has is not a second owner.
        try tx.setValue(link(fixture.child, child), at: path(fixture.parent, owner, 1))
        #expect(tx.instructions == [.setValue(path(fixture.parent, owner, 1), link(fixture.child, child))])
        try tx.commit()
        #expect(fixture.snapshot.table(fixture.child)?.backlinks(to: child)
                == [Backlink(table: fixture.parent, column: 1, object: owner)])
    }

    @Test("one write cannot give an unowned embedded object two owners",
          arguments: ["two columns of one insert", "twice in the list of one insert", "twice in one list assignment"])
    func oneWriteCannotLinkAnEmbeddedObjectTwice(way: String) throws {
        let fixture = try Fixture()
        let (child, parent) = try fixture.store.write { tx in
            (try tx.insertObject(into: fixture.child, values: [.int(1), .null]),
             try tx.insertObject(into: fixture.parent, values: [.string("p"), .null, .list([])]))
        }
        let owned = link(fixture.child, child)
        let tx = try fixture.store.beginWrite()
        expectStrataError(.invalidInput, "the same embedded object \(way)") {
            switch way {
            case "two columns of one insert":
                try tx.insertObject(into: fixture.parent, values: [.string("q"), owned, .list([owned])])
            case "twice in the list of one insert":
                try tx.insertObject(into: fixture.parent, values: [.string("q"), .null, .list([owned, owned])])
            default:
                try tx.setValue(.list([owned, owned]), at: path(fixture.parent, parent, 2))
            }
        }
        #expect(tx.snapshot.table(fixture.child)?.backlinkCount(to: child) == 0,
                "an embedded object must never have more than one owner")
        #expect(tx.instructions.isEmpty)
        tx.cancel()
    }

    @Test("a transaction that has ended refuses further changes with wrongState")
    func endedTransactionIsRejected() throws {
        let fixture = try Fixture()
        let tx = try fixture.store.beginWrite()
        try tx.insertObject(into: fixture.target, values: [.string("t")])
        try tx.commit()
        #expect(!tx.isActive)
        expectStrataError(.wrongState) { try tx.insertObject(into: fixture.target, values: [.string("u")]) }
        expectStrataError(.wrongState) { try tx.commit() }
        #expect(fixture.snapshot.table(fixture.target)?.count == 1)
    }

    // MARK: - Embedded objects

    @Test("erasing a parent erases its embedded children, recursively, as explicit instructions")
    func erasingParentErasesEmbeddedChildren() throws {
        let fixture = try Fixture()
        let (parent, first, grandchild, second, third, survivor) = try fixture.store.write { tx in
            let grandchild = try tx.insertObject(into: fixture.child, values: [.int(11), .null])
            let first = try tx.insertObject(into: fixture.child, values: [.int(1), link(fixture.child, grandchild)])
            let second = try tx.insertObject(into: fixture.child, values: [.int(2), .null])
            let third = try tx.insertObject(into: fixture.child, values: [.int(3), .null])
            let survivor = try tx.insertObject(into: fixture.child, values: [.int(4), .null])
            let parent = try tx.insertObject(
                into: fixture.parent,
                values: [.string("p"), link(fixture.child, first),
                         .list([link(fixture.child, second), link(fixture.child, third)])])
            _ = try tx.insertObject(into: fixture.parent,
                                    values: [.string("keep"), link(fixture.child, survivor), .list([])])
            return (parent, first, grandchild, second, third, survivor)
        }
        let pin = try fixture.store.pin()
        let instructions = try fixture.erase(parent, in: fixture.parent)
        #expect(instructions == [
            .eraseObject(fixture.parent, parent),
            .eraseObject(fixture.child, first),
            .eraseObject(fixture.child, grandchild),
            .eraseObject(fixture.child, second),
            .eraseObject(fixture.child, third),
        ])
        let snapshot = fixture.snapshot
        #expect(snapshot.table(fixture.parent)?.count == 1)
        #expect(snapshot.table(fixture.child)?.objectKeys == [survivor])
        #expect(snapshot.table(fixture.child)?.backlinkCount(to: survivor) == 1)
        let summary = try #require(fixture.store.changesets(after: pin.version)?.first?.summary)
        #expect(summary[fixture.parent].deletions == [parent])
        #expect(summary[fixture.child].deletions == [first, grandchild, second, third])
        #expect(summary[fixture.child].modifications.isEmpty)
        withExtendedLifetime(pin) {}
    }

    @Test("overwriting, removing or replacing an embedded link erases the old child it owned")
    func overwritingEmbeddedLinkErasesOldChild() throws {
        let fixture = try Fixture()
        let (parent, old, listed, kept) = try fixture.store.write { tx in
            let old = try tx.insertObject(into: fixture.child, values: [.int(1), .null])
            let listed = try tx.insertObject(into: fixture.child, values: [.int(2), .null])
            let kept = try tx.insertObject(into: fixture.child, values: [.int(3), .null])
            let parent = try tx.insertObject(
                into: fixture.parent,
                values: [.string("p"), link(fixture.child, old), .list([link(fixture.child, listed), link(fixture.child, kept)])])
            return (parent, old, listed, kept)
        }
        let child = fixture.child
        let single = path(fixture.parent, parent, 1)
        let list = path(fixture.parent, parent, 2)

        // A single link.
        var tx = try fixture.store.beginWrite()
        let replacement = try tx.insertObject(into: child, values: [.int(10), .null])
        try tx.setValue(link(child, replacement), at: single)
        #expect(Array(tx.instructions.dropFirst()) == [.setValue(single, link(child, replacement)), .eraseObject(child, old)])
        try tx.commit()
        #expect(fixture.snapshot.table(child)?.contains(old) == false)
        #expect(fixture.snapshot.table(child)?.contains(replacement) == true)

        // Setting it to null erases the child too.
        tx = try fixture.store.beginWrite()
        try tx.setValue(.null, at: single)
        #expect(tx.instructions == [.setValue(single, .null), .eraseObject(child, replacement)])
        try tx.commit()

        // Replacing the whole list erases the children it held; a new list may not reuse one of
        // them, since each already has an owner.
        tx = try fixture.store.beginWrite()
        let added = try tx.insertObject(into: child, values: [.int(20), .null])
        let addedToo = try tx.insertObject(into: child, values: [.int(21), .null])
        expectStrataError(.invalidInput) { try tx.setValue(.list([link(child, kept), link(child, added)]), at: list) }
        try tx.setValue(.list([link(child, added), link(child, addedToo)]), at: list)
        #expect(Array(tx.instructions.dropFirst(2)) == [
            .setValue(list, .list([link(child, added), link(child, addedToo)])),
            .eraseObject(child, listed), .eraseObject(child, kept),
        ])
        try tx.commit()

        // listSet and listErase erase the element they replace or remove.
        tx = try fixture.store.beginWrite()
        let another = try tx.insertObject(into: child, values: [.int(30), .null])
        try tx.listSet(link(child, another), at: 1, in: list)
        try tx.listErase(at: 0, in: list)
        #expect(Array(tx.instructions.dropFirst()) == [
            .list(list, .set(index: 1, value: link(child, another))), .eraseObject(child, addedToo),
            .list(list, .erase(index: 0)), .eraseObject(child, added),
        ])
        try tx.commit()

        let snapshot = fixture.snapshot
        #expect(snapshot.table(child)?.objectKeys == [another])
        #expect(snapshot.table(fixture.parent)?.row(parent)?.values == [.string("p"), .null, .list([link(child, another)])])
        #expect(snapshot.table(child)?.backlinks(to: another) == [Backlink(table: fixture.parent, column: 2, object: parent)])
    }

    // MARK: - Erasing link targets

    @Test("erasing a link target sets a single link to it to null")
    func erasingTargetNullifiesSingleLink() throws {
        let fixture = try Fixture()
        let targets = try fixture.insertTargets(["t", "u"])
        let (source, other) = try fixture.store.write { tx in
            var values = fixture.emptySource()
            values[0] = link(fixture.target, targets[0])
            let source = try tx.insertObject(into: fixture.source, values: values)
            values[0] = link(fixture.target, targets[1])
            return (source, try tx.insertObject(into: fixture.source, values: values))
        }
        let pin = try fixture.store.pin()
        let instructions = try fixture.erase(targets[0], in: fixture.target)
        #expect(instructions == [.setValue(path(fixture.source, source, 0), .null), .eraseObject(fixture.target, targets[0])])
        let snapshot = fixture.snapshot
        #expect(snapshot.table(fixture.source)?.row(source)?[0] == .null)
        #expect(snapshot.table(fixture.source)?.row(other)?[0] == link(fixture.target, targets[1]))
        let summary = try #require(fixture.store.changesets(after: pin.version)?.first?.summary)
        #expect(summary[fixture.target].deletions == [targets[0]])
        #expect(summary[fixture.source].modifications == [source: [0]])
        withExtendedLifetime(pin) {}
    }

    @Test("erasing a link target removes every occurrence of it from a list")
    func erasingTargetRemovesItFromLists() throws {
        let fixture = try Fixture()
        let targets = try fixture.insertTargets(["t", "u"])
        let (t, u) = (link(fixture.target, targets[0]), link(fixture.target, targets[1]))
        let source = try fixture.store.write { tx in
            var values = fixture.emptySource()
            values[1] = .list([t, u, t, u, t])
            return try tx.insertObject(into: fixture.source, values: values)
        }
        let many = path(fixture.source, source, 1)
        let instructions = try fixture.erase(targets[0], in: fixture.target)
        #expect(instructions == [
            .list(many, .erase(index: 4)), .list(many, .erase(index: 2)), .list(many, .erase(index: 0)),
            .eraseObject(fixture.target, targets[0]),
        ])
        let snapshot = fixture.snapshot
        #expect(snapshot.table(fixture.source)?.row(source)?[1] == .list([u, u]))
        #expect(snapshot.table(fixture.target)?.backlinks(to: targets[1])
                == [Backlink(table: fixture.source, column: 1, object: source),
                    Backlink(table: fixture.source, column: 1, object: source)])
    }

    @Test("erasing a link target removes it from a set")
    func erasingTargetRemovesItFromSets() throws {
        let fixture = try Fixture()
        let targets = try fixture.insertTargets(["t", "u"])
        let (t, u) = (link(fixture.target, targets[0]), link(fixture.target, targets[1]))
        let source = try fixture.store.write { tx in
            var values = fixture.emptySource()
            values[2] = .set([u, t])
            return try tx.insertObject(into: fixture.source, values: values)
        }
        #expect(fixture.snapshot.table(fixture.source)?.row(source)?[2] == .set([t, u]), "set elements are kept sorted")
        let instructions = try fixture.erase(targets[0], in: fixture.target)
        #expect(instructions == [.set(path(fixture.source, source, 2), .erase(t)), .eraseObject(fixture.target, targets[0])])
        #expect(fixture.snapshot.table(fixture.source)?.row(source)?[2] == .set([u]))
    }

    @Test("erasing a link target sets the dictionary values that link to it to null and keeps their keys")
    func erasingTargetNullsDictionaryValues() throws {
        let fixture = try Fixture()
        let targets = try fixture.insertTargets(["t", "u"])
        let (t, u) = (link(fixture.target, targets[0]), link(fixture.target, targets[1]))
        let source = try fixture.store.write { tx in
            var values = fixture.emptySource()
            values[3] = .dictionary(ValueMap([("c", t), ("a", t), ("b", u)]))
            return try tx.insertObject(into: fixture.source, values: values)
        }
        let map = path(fixture.source, source, 3)
        let instructions = try fixture.erase(targets[0], in: fixture.target)
        #expect(instructions == [
            .dictionary(map, .set(key: "a", value: .null)), .dictionary(map, .set(key: "c", value: .null)),
            .eraseObject(fixture.target, targets[0]),
        ])
        #expect(fixture.snapshot.table(fixture.source)?.row(source)?[3]
                == .dictionary(ValueMap([("a", .null), ("b", u), ("c", .null)])))
    }

    @Test("erasing a link target removes it from mixed values, including nested lists and dictionaries")
    func erasingTargetCleansMixedValues() throws {
        let fixture = try Fixture()
        let targets = try fixture.insertTargets(["t", "u"])
        let (t, u) = (link(fixture.target, targets[0]), link(fixture.target, targets[1]))
        let (plain, nested) = try fixture.store.write { tx in
            var values = fixture.emptySource()
            values[4] = t
            let plain = try tx.insertObject(into: fixture.source, values: values)
            values[4] = .list([t, .int(1), .dictionary(ValueMap([("k", t), ("l", u)])), u])
            return (plain, try tx.insertObject(into: fixture.source, values: values))
        }
        let tx = try fixture.store.beginWrite()
        try tx.eraseObject(targets[0], in: fixture.target)
        let expectedNested = Value.list([.int(1), .dictionary(ValueMap([("k", .null), ("l", u)])), u])
        #expect(Set(tx.instructions) == [
            .setValue(path(fixture.source, plain, 4), .null),
            .setValue(path(fixture.source, nested, 4), expectedNested),
            .eraseObject(fixture.target, targets[0]),
        ])
        #expect(tx.instructions.count == 3)
        #expect(tx.instructions.last == .eraseObject(fixture.target, targets[0]))
        try tx.commit()
        let table = try #require(fixture.snapshot.table(fixture.source))
        #expect(table.row(plain)?[4] == .null)
        #expect(table.row(nested)?[4] == expectedNested)
        #expect(fixture.snapshot.table(fixture.target)?.backlinks(to: targets[1])
                == [Backlink(table: fixture.source, column: 4, object: nested),
                    Backlink(table: fixture.source, column: 4, object: nested)])
    }

    @Test("erasing a link target leaves no link to it inside a set of mixed values (or such a set cannot hold collections)")
    func erasingTargetCleansNestedLinksInMixedSets() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let (target, holder) = try store.write { tx in
            (try tx.createTable(TableSchema(name: "Target", columns: [ColumnSchema("n", .int)])),
             try tx.createTable(TableSchema(name: "Holder", columns: [ColumnSchema("bag", .mixed, collection: .set)])))
        }
        let erased = try store.write { tx in try tx.insertObject(into: target, values: [.int(1)]) }
        let nested = Value.set([.list([link(target, erased), .int(2)])])
        let holderKey: ObjectKey
        do {
            holderKey = try store.write { tx in try tx.insertObject(into: holder, values: [nested]) }
        } catch StrataError.Code.invalidInput {
            return  // Realm's rule: a set of mixed values cannot contain a collection.
        }
        try store.write { tx in try tx.eraseObject(erased, in: target) }
        let row = try #require(store.currentSnapshot.table(holder)?.row(holderKey))
        var dangling: [ObjectLink] = []
        row[0].forEachLink { if store.currentSnapshot.row($0) == nil { dangling.append($0) } }
        #expect(dangling == [], "the set still holds a link to the erased object: \(row[0])")
    }

    @Test("erasing a target linked from every kind of column cleans each one and records the source as modified")
    func erasingTargetCleansAllOrigins() throws {
        let fixture = try Fixture()
        let targets = try fixture.insertTargets(["t", "u"])
        let (t, u) = (link(fixture.target, targets[0]), link(fixture.target, targets[1]))
        let (first, second) = try fixture.store.write { tx in
            let first = try tx.insertObject(
                into: fixture.source,
                values: [t, .list([t, u]), .set([t, u]), .dictionary(ValueMap([("x", t), ("y", u)])), t])
            let second = try tx.insertObject(into: fixture.source,
                                             values: [t, .list([u]), .set([]), .dictionary(ValueMap()), .null])
            return (first, second)
        }
        #expect(fixture.snapshot.table(fixture.target)?.backlinkCount(to: targets[0]) == 6)
        let pin = try fixture.store.pin()
        let instructions = try fixture.erase(targets[0], in: fixture.target)
        // The origins are visited in no particular order; each one's instructions are exact.
        #expect(Set(instructions) == [
            .setValue(path(fixture.source, first, 0), .null),
            .list(path(fixture.source, first, 1), .erase(index: 0)),
            .set(path(fixture.source, first, 2), .erase(t)),
            .dictionary(path(fixture.source, first, 3), .set(key: "x", value: .null)),
            .setValue(path(fixture.source, first, 4), .null),
            .setValue(path(fixture.source, second, 0), .null),
            .eraseObject(fixture.target, targets[0]),
        ])
        #expect(instructions.count == 7)
        #expect(instructions.last == .eraseObject(fixture.target, targets[0]))

        let snapshot = fixture.snapshot
        let source = try #require(snapshot.table(fixture.source))
        #expect(source.row(first)?.values == [.null, .list([u]), .set([u]), .dictionary(ValueMap([("x", .null), ("y", u)])), .null])
        #expect(source.row(second)?.values == [.null, .list([u]), .set([]), .dictionary(ValueMap()), .null])
        #expect(snapshot.table(fixture.target)?.backlinks(to: targets[0]) == [])
        #expect(snapshot.table(fixture.target)?.backlinks(to: targets[1]) == [
            Backlink(table: fixture.source, column: 1, object: first),
            Backlink(table: fixture.source, column: 1, object: second),
            Backlink(table: fixture.source, column: 2, object: first),
            Backlink(table: fixture.source, column: 3, object: first),
        ])
        let summary = try #require(fixture.store.changesets(after: pin.version)?.first?.summary)
        #expect(summary[fixture.source].modifications == [first: [0, 1, 2, 3, 4], second: [0]])
        #expect(summary[fixture.target].deletions == [targets[0]])
        #expect(summary[fixture.source].deletions.isEmpty && summary[fixture.source].insertions.isEmpty)
        withExtendedLifetime(pin) {}
    }

    @Test("an object that links to itself can be erased")
    func erasingSelfLinkedObject() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let node = try store.write { tx in
            try tx.createTable(TableSchema(name: "Node", columns: [ColumnSchema("next", .link, linkTarget: "Node"),
                                                                   ColumnSchema("all", .link, collection: .list, linkTarget: "Node")]))
        }
        let key = try store.write { tx in
            let key = try tx.insertObject(into: node, values: [.null, .list([])])
            try tx.setValue(link(node, key), at: path(node, key, 0))
            try tx.listAppend(link(node, key), in: path(node, key, 1))
            return key
        }
        #expect(store.currentSnapshot.table(node)?.backlinkCount(to: key) == 2)
        let tx = try store.beginWrite()
        try tx.eraseObject(key, in: node)
        #expect(tx.instructions.last == .eraseObject(node, key))
        try tx.commit()
        #expect(store.currentSnapshot.table(node)?.count == 0)
        #expect(store.currentSnapshot.table(node)?.backlinks(to: key) == [])
    }
}
