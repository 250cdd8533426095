import GRDB
import Strata

/// W4: (a) `count where age > 50 AND city == "city-3"` over 100k rows, 100 times;
/// (b) equality lookup on the indexed `name` (k from SplitMix64 seed 42), 10_000 times, decoded.
enum W4Queries {
    static let countQueries = 100
    static let nameLookups = 10_000

    static func run(_ fixtures: Fixtures, _ table: Table) throws {
        let names = SplitMix64.ids(count: nameLookups).map { "name-\($0)" }
        let comparison = Comparison(workload: "W4", pairing: nil, repetition: .median(of: 5))
        let result = try comparison.run(grdb: .measure { try grdb(fixtures.grdb, names) },
                                        strata: .measure { try strata(fixtures.strata, names) })
        try expect(result.strata["checksum"].number, result.grdb["checksum"].number, "W4b checksum, Strata vs GRDB")
        table.add("W4a count(age > 50 AND city == city-3)", result, "count_queries_s", unit: "queries/s",
                  better: .higher)
        table.add("W4b indexed name lookups", result, "name_lookups_s", unit: "ops/s", better: .higher)
    }

    static func grdb(_ store: GRDBStore, _ names: [String]) throws -> Figures {
        typealias C = Person.Columns
        return try store.pool.read { db in
            var count = 0
            var start = now()
            for _ in 0..<countQueries { count = try Person.filter(C.age > 50 && C.city == "city-3").fetchCount(db) }
            let countRate = Double(countQueries) / seconds(since: start)
            try expect(count, Expected.ageOver50City3, "W4a count")
            var checksum = 0
            start = now()
            for name in names { checksum &+= try Person.filter(C.name == name).fetchOne(db)!.checksum }
            let lookupRate = Double(names.count) / seconds(since: start)
            return Figures(sync: store.sync, [
                "count_queries_s": .number(countRate), "count": .integer(count),
                "name_lookups_s": .number(lookupRate), "checksum": .integer(checksum),
            ])
        }
    }

    /// The same queries through Strata's type-safe `where {}` (a scan for (a), the index on
    /// `name` for (b)); each count runs the query anew.
    static func strata(_ store: StrataStore, _ names: [String]) throws -> Figures {
        let realm = store.realm
        let people = realm.objects(BenchPerson.self)
        var count = 0
        var start = now()
        for _ in 0..<countQueries { count = people.where { $0.age > 50 && $0.city == "city-3" }.count }
        let countRate = Double(countQueries) / seconds(since: start)
        try expect(count, Expected.ageOver50City3, "W4a count")
        var checksum = 0
        start = now()
        for name in names { checksum &+= people.where { $0.name == name }.first!.checksum }
        let lookupRate = Double(names.count) / seconds(since: start)
        return Figures(sync: store.sync, [
            "count_queries_s": .number(countRate), "count": .integer(count),
            "name_lookups_s": .number(lookupRate), "checksum": .integer(checksum),
        ])
    }
}
