import Testing
@testable import StrataEngine

/// The primary-key index and the secondary indexes stay consistent with the rows through
/// inserts, updates, primary-key changes, erases, cancelled transactions, schema changes and
/// reopening.
@Suite("Indexes")
struct IndexTests {
    /// City: 0 code (primary key, int or string), 1 name (string, indexed), 2 zip (optional
    /// int, indexed), 3 label (string, not indexed).
    private static func citySchema(primaryKeyType: ValueType) -> TableSchema {
        TableSchema(
            name: "City",
            columns: [
                ColumnSchema("code", primaryKeyType),
                ColumnSchema("name", .string, isIndexed: true),
                ColumnSchema("zip", .int, isOptional: true, isIndexed: true),
                ColumnSchema("label", .string),
            ],
            primaryKey: "code")
    }

    private static func primaryKey(_ number: Int, _ type: ValueType) -> Value {
        type == .int ? .int(Int64(number)) : .string("code-\(number)")
    }

    /// Checks every index of `table` against the expected primary keys (key → object) and a
    /// scan of the rows, for every value in `names` and `zips`.
    private static func expectConsistent(
        _ table: Table, primaryKeys: [Value: ObjectKey], absent: [Value], names: [String], zips: [Value],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(table.count == primaryKeys.count, sourceLocation: sourceLocation)
        var wrong: [String] = []
        for (value, key) in primaryKeys {
            if table.object(forPrimaryKey: value) != key { wrong.append("pk \(value) → \(String(describing: table.object(forPrimaryKey: value))), expected \(key)") }
            if table.objects(where: 0, equals: value) != [key] { wrong.append("objects(where: pk == \(value))") }
            if table.row(key)?[0] != value { wrong.append("row \(key) has pk \(String(describing: table.row(key)?[0]))") }
        }
        for value in absent where primaryKeys[value] == nil {
            if let found = table.object(forPrimaryKey: value) { wrong.append("absent pk \(value) → \(found)") }
        }
        for name in names {
            let indexed = table.objects(where: 1, equals: .string(name))
            if indexed != table.scan(column: 1, equals: .string(name)) { wrong.append("name \(name): index \(indexed)") }
        }
        for zip in zips {
            let indexed = table.objects(where: 2, equals: zip)
            if indexed != table.scan(column: 2, equals: zip) { wrong.append("zip \(zip): index \(indexed)") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))", sourceLocation: sourceLocation)
    }

    @Test("primary-key and secondary-index lookups match the rows after inserts, updates, key changes and erases",
          arguments: [ValueType.int, .string])
    func lookupsFollowChanges(primaryKeyType: ValueType) throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let cities = try store.write { tx in try tx.createTable(Self.citySchema(primaryKeyType: primaryKeyType)) }
        let names = (0..<7).map { "name-\($0)" } + ["never"]
        let zips: [Value] = (0..<5).map { .int(Int64($0)) } + [.null, .int(999)]
        var random = SeededRandom(seed: 0x1DE_C0DE)
        var primaryKeys: [Value: ObjectKey] = [:]
        var everUsed = Set<Value>()
        var nextNumber = 0

        for round in 0..<40 {
            let tx = try store.beginWrite()
            var working = primaryKeys
            for _ in 0..<15 {
                let choice = Int.random(in: 0..<10, using: &random)
                if working.isEmpty || choice < 3 {
                    let code = Self.primaryKey(nextNumber, primaryKeyType)
                    nextNumber += 1
                    let zip: Value = Bool.random(using: &random) ? .null : .int(Int64.random(in: 0..<5, using: &random))
                    let key = try tx.insertObject(into: cities, values: [
                        code, .string(names[Int.random(in: 0..<7, using: &random)]), zip, .string("l"),
                    ])
                    working[code] = key
                    everUsed.insert(code)
                    continue
                }
                let code = working.keys.sorted().randomElement(using: &random)!
                let key = working[code]!
                switch choice {
                case 3:
                    try tx.setValue(.string(names[Int.random(in: 0..<7, using: &random)]), at: path(cities, key, 1))
                case 4:
                    let zip: Value = Bool.random(using: &random) ? .null : .int(Int64.random(in: 0..<5, using: &random))
                    try tx.setValue(zip, at: path(cities, key, 2))
                case 5:
                    try tx.setValue(.string("label-\(round)"), at: path(cities, key, 3))
                case 6:
                    // A fresh primary key for an existing object: the old value must stop resolving.
                    let fresh = Self.primaryKey(nextNumber, primaryKeyType)
                    nextNumber += 1
                    try tx.setValue(fresh, at: path(cities, key, 0))
                    working[code] = nil
                    working[fresh] = key
                    everUsed.insert(fresh)
                case 7:
                    // Taking another object's key fails and changes nothing.
                    if let other = working.keys.sorted().first(where: { working[$0] != key }) {
                        let recorded = tx.instructions.count
                        expectStrataError(.duplicatePrimaryKey) { try tx.setValue(other, at: path(cities, key, 0)) }
                        #expect(tx.instructions.count == recorded)
                    }
                default:
                    try tx.eraseObject(key, in: cities)
                    working[code] = nil
                }
            }
            // The transaction's own snapshot is consistent before it commits.
            Self.expectConsistent(try #require(tx.snapshot.table(cities)), primaryKeys: working,
                                  absent: Array(everUsed), names: names, zips: zips)
            if round % 7 == 6 {
                tx.cancel()
            } else {
                try tx.commit()
                primaryKeys = working
            }
            Self.expectConsistent(try #require(store.currentSnapshot.table(cities)), primaryKeys: primaryKeys,
                                  absent: Array(everUsed), names: names, zips: zips)
        }
        #expect(primaryKeys.count > 20, "the random run should leave a populated table")
    }

    @Test("two objects can swap primary keys within one transaction")
    func swappingPrimaryKeys() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let cities = try store.write { tx in try tx.createTable(Self.citySchema(primaryKeyType: .int)) }
        let (a, b) = try store.write { tx in
            (try tx.insertObject(into: cities, values: [.int(1), .string("a"), .null, .string("")]),
             try tx.insertObject(into: cities, values: [.int(2), .string("b"), .null, .string("")]))
        }
        try store.write { tx in
            try tx.setValue(.int(3), at: path(cities, a, 0))
            try tx.setValue(.int(1), at: path(cities, b, 0))
            try tx.setValue(.int(2), at: path(cities, a, 0))
        }
        let table = try #require(store.currentSnapshot.table(cities))
        #expect(table.object(forPrimaryKey: .int(1)) == b)
        #expect(table.object(forPrimaryKey: .int(2)) == a)
        #expect(table.object(forPrimaryKey: .int(3)) == nil)
    }

    @Test("an index added to a populated column covers the existing objects, and lookups still work after it is dropped")
    func addingAndDroppingAnIndex() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let cities = try store.write { tx in try tx.createTable(Self.citySchema(primaryKeyType: .int)) }
        let keys = try store.write { tx in
            try (0..<60).map { number in
                try tx.insertObject(into: cities, values: [.int(Int64(number)), .string("n"), .null,
                                                           .string("label-\(number % 4)")])
            }
        }
        try store.write { tx in try tx.setIndexed(true, column: 3, of: cities) }
        var table = try #require(store.currentSnapshot.table(cities))
        #expect(table.secondaryIndexes[3] != nil)
        #expect(table.objects(where: 3, equals: .string("label-1")) == keys.enumerated().filter { $0.offset % 4 == 1 }.map(\.element))

        try store.write { tx in
            try tx.setValue(.string("label-1"), at: path(cities, keys[0], 3))
            try tx.eraseObject(keys[1], in: cities)
        }
        table = try #require(store.currentSnapshot.table(cities))
        let expected = [keys[0]] + keys.enumerated().filter { $0.offset % 4 == 1 && $0.offset != 1 }.map(\.element)
        #expect(table.objects(where: 3, equals: .string("label-1")) == expected)
        #expect(table.objects(where: 3, equals: .string("label-1")) == table.scan(column: 3, equals: .string("label-1")))

        try store.write { tx in try tx.setIndexed(false, column: 3, of: cities) }
        table = try #require(store.currentSnapshot.table(cities))
        #expect(table.secondaryIndexes[3] == nil)
        #expect(table.objects(where: 3, equals: .string("label-1")) == expected)
    }

    @Test("indexes are rebuilt when a file store is reopened from its log and from a checkpoint")
    func indexesSurviveReopen() throws {
        try withTemporaryDirectory { directory in
            let configuration = StoreConfiguration.file(directory.file("index.strata"), durability: .normal)
            let names = (0..<5).map { "name-\($0)" }
            let zips: [Value] = [.null, .int(0), .int(1), .int(2)]
            var primaryKeys: [Value: ObjectKey] = [:]
            try withStore(configuration) { store in
                let cities = try store.write { tx in try tx.createTable(Self.citySchema(primaryKeyType: .string)) }
                try store.write { tx in
                    for number in 0..<100 {
                        let code = Self.primaryKey(number, .string)
                        primaryKeys[code] = try tx.insertObject(into: cities, values: [
                            code, .string(names[number % 5]), zips[number % 4], .string(""),
                        ])
                    }
                }
                try store.write { tx in
                    for number in stride(from: 0, to: 100, by: 3) {
                        let code = Self.primaryKey(number, .string)
                        try tx.eraseObject(primaryKeys.removeValue(forKey: code)!, in: cities)
                    }
                    let moved = primaryKeys.removeValue(forKey: Self.primaryKey(1, .string))!
                    try tx.setValue(.string("moved"), at: path(cities, moved, 0))
                    try tx.setValue(.string("name-0"), at: path(cities, moved, 1))
                    primaryKeys[.string("moved")] = moved
                }
            }
            let absent = (0..<100).map { Self.primaryKey($0, .string) }
            for pass in ["log replay", "checkpoint"] {
                try withStore(configuration) { store in
                    let table = try #require(store.currentSnapshot.table(named: "City"), "\(pass)")
                    Self.expectConsistent(table, primaryKeys: primaryKeys, absent: absent, names: names, zips: zips)
                    #expect(table.objects(where: 1, equals: .string("name-0")).contains(primaryKeys[.string("moved")]!))
                    if pass == "log replay" { try store.checkpoint() }
                }
            }
        }
    }
}
