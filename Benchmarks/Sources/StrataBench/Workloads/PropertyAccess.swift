import Strata

/// Extra: the cost of Strata's managed accessors, one figure per read/write target of issue 14
/// (Strata only: a GRDB record is a plain struct, so its field access is not a database
/// operation).
enum PropertyAccess {
    /// The objects seeded: 100,000, or `--rows N` (for the accessor profiles at other sizes; the
    /// W4/W5 profiles' expected counts hold for 100,000 only).
    static let rows: Int64 = {
        guard let text = Options.value(after: "--rows") else { return defaultRows }
        guard let rows = Int64(text), rows >= 1_000 else {
            fatalError("--rows takes a whole number of at least 1,000 (the profiles read object 500), not '\(text)'")
        }
        return rows
    }()
    static let defaultRows: Int64 = 100_000
    static let reads = 1_000_000
    static let lookups = 100_000
    static let writes = 100_000
    private static let grdbNote = "n/a; GRDB records are plain structs (no managed accessor)"

    static func run(_ table: Table) throws {
        let comparison = Comparison(workload: "property_access", pairing: nil, repetition: .median(of: 5))
        let result = try comparison.run(grdb: .notMeasured(sync: "n/a", note: grdbNote), strata: .measure {
            // Issue 14's read figures are hot: the seeding transaction (100,000 objects) moves the
            // leaves it filled to its scratch file, so the first pass over the rows (and over the
            // primary-key index) reads them back, as the first pass after opening a store reads
            // pages. The first iteration is reported on its own row; the lookups are timed after
            // an untimed pass.
            let store = try StrataStore(.normal, seededRows: rows)
            let firstIteration = try stringIteration(store)
            _ = try primaryKeyLookup(store)
            return Figures(sync: store.sync, [
                "int_read_ns": .number(try intRead(store)),
                "string_iteration_first_pass_ns": .number(firstIteration),
                "string_iteration_ns": .number(try stringIteration(store)),
                "pk_lookup_ns": .number(try primaryKeyLookup(store)),
                "int_write_ns": .number(try intWrite(store)),
            ])
        })
        table.add("managed Int property read on a held object", result, "int_read_ns",
                  unit: "ns/read", better: .lower)
        table.add("String property read while iterating Results, first pass after the seeding transaction (\(rows / 1000)k objects)",
                  result, "string_iteration_first_pass_ns", unit: "ns/object", better: .lower)
        table.add("String property read while iterating Results (\(rows / 1000)k objects)", result,
                  "string_iteration_ns", unit: "ns/object", better: .lower)
        table.add("primary-key lookup, object(ofType:forPrimaryKey:) (\(rows / 1000)k rows)", result,
                  "pk_lookup_ns", unit: "ns/lookup", better: .lower)
        table.add("managed Int property set inside one write", result, "int_write_ns",
                  unit: "ns/set", better: .lower)
    }

    /// Nanoseconds per `Int` property read on one held managed object.
    static func intRead(_ store: StrataStore) throws -> Double {
        let person = store.realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(500))!
        var checksum = 0
        let start = now()
        for _ in 0..<reads { checksum &+= person.age }
        let elapsed = Double(now() - start)
        try expect(checksum, reads * (500 % 100), "Int read checksum")
        return elapsed / Double(reads)
    }

    /// Nanoseconds per object to iterate all objects of a `Results` reading one `String`
    /// property of each.
    static func stringIteration(_ store: StrataStore) throws -> Double {
        let people = store.realm.objects(BenchPerson.self)
        var bytes = 0
        let start = now()
        for person in people { bytes &+= person.name.utf8.count }
        let elapsed = Double(now() - start)
        try expect(bytes, (1...rows).reduce(0) { $0 + "name-\($1)".utf8.count }, "String iteration byte count")
        return elapsed / Double(rows)
    }

    /// Nanoseconds per primary-key lookup (SplitMix64 keys, the object's `Int` property read).
    static func primaryKeyLookup(_ store: StrataStore) throws -> Double {
        let ids = SplitMix64.ids(count: lookups, rows: rows)
        let realm = store.realm
        var found = 0
        let start = now()
        for id in ids where realm.object(ofType: BenchPerson.self, forPrimaryKey: id) != nil { found += 1 }
        let elapsed = Double(now() - start)
        try expect(found, lookups, "primary-key lookups found")
        return elapsed / Double(lookups)
    }

    /// Nanoseconds per object of W4(a)'s filtered count (`age > 50 AND city == "city-3"`), a scan
    /// of every row (for `--profile-property scan`; not a target figure).
    static func filteredScan(_ store: StrataStore) throws -> Double {
        let people = store.realm.objects(BenchPerson.self)
        let queries = 20
        var count = 0
        let start = now()
        for _ in 0..<queries { count = people.where { $0.age > 50 && $0.city == "city-3" }.count }
        let elapsed = Double(now() - start)
        try expect(count, Expected.ageOver50City3, "W4a count")
        return elapsed / Double(queries) / Double(rows)
    }

    /// Nanoseconds per `Int` property set inside one write transaction (the commit excluded).
    static func intWrite(_ store: StrataStore) throws -> Double {
        let realm = store.realm
        let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(500))!
        realm.beginWrite()
        let start = now()
        for i in 0..<writes { person.age = i }
        let elapsed = Double(now() - start)
        try realm.commitWrite()
        try expect(person.age, writes - 1, "Int write read back")
        return elapsed / Double(writes)
    }
}
