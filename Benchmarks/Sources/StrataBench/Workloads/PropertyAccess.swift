import Strata

/// Extra: the cost of reading and writing a managed object's property (Strata only: a GRDB
/// record is a plain struct, so its field access is not a database operation).
enum PropertyAccess {
    static let reads = 1_000_000
    static let writes = 100_000
    private static let grdbNote = "n/a; GRDB records are plain structs (no managed accessor)"

    static func run(_ table: Table) throws {
        let comparison = Comparison(workload: "property_access", pairing: nil, repetition: .median(of: 5))
        let result = try comparison.run(grdb: .notMeasured(sync: "n/a", note: grdbNote), strata: .measure {
            let store = try StrataStore(.normal, seededRows: 1_000)
            return Figures(sync: store.sync, [
                "read_ns": .number(try read(store, accesses: reads)),
                "write_ns": .number(try write(store, accesses: writes)),
            ])
        })
        table.add("managed property read", result, "read_ns", unit: "ns/access", better: .lower)
        table.add("managed property write (in one write tx)", result, "write_ns", unit: "ns/access", better: .lower)
    }

    /// Nanoseconds per managed property read (an Int and a String property, alternating).
    static func read(_ store: StrataStore, accesses: Int) throws -> Double {
        let person = store.realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(500))!
        var checksum = 0
        let start = now()
        for _ in 0..<(accesses / 2) {
            checksum &+= person.age
            checksum &+= person.name.utf8.count
        }
        let elapsed = Double(now() - start)
        try expect(checksum, accesses / 2 * (500 % 100 + "name-500".utf8.count), "property read checksum")
        return elapsed / Double(accesses)
    }

    /// Nanoseconds per managed property write inside one write transaction.
    static func write(_ store: StrataStore, accesses: Int) throws -> Double {
        let realm = store.realm
        let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(500))!
        let start = now()
        try realm.write {
            for i in 0..<accesses { person.score = Double(i) }
        }
        return Double(now() - start) / Double(accesses)
    }
}
