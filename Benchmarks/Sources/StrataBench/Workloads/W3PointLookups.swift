import GRDB
import Strata

/// W3: 100_000 primary-key lookups (SplitMix64 seed 42), each object fully decoded, in one read
/// transaction / snapshot. GRDB also reports `ops_s_cached_stmt` (one reused prepared statement).
enum W3PointLookups {
    static let lookups = 100_000

    static func run(_ fixtures: Fixtures, _ table: Table) throws {
        let ids = SplitMix64.ids(count: lookups)
        let comparison = Comparison(workload: "W3", pairing: nil, repetition: .median(of: 5))
        let result = try comparison.run(grdb: .measure { try grdb(fixtures.grdb, ids) },
                                        strata: .measure { try strata(fixtures.strata, ids) })
        try expect(result.strata["checksum"].number, result.grdb["checksum"].number, "W3 checksum, Strata vs GRDB")
        table.add("W3 point lookups, record API", result, "ops_s", unit: "ops/s", better: .higher)
        table.add("W3 point lookups, Strata record API vs GRDB cached statement", result, "ops_s",
                  grdbKey: "ops_s_cached_stmt", unit: "ops/s", better: .higher)
    }

    static func grdb(_ store: GRDBStore, _ ids: [Int64]) throws -> Figures {
        try store.pool.read { db in
            var checksum = 0
            var start = now()
            for id in ids { checksum &+= try Person.fetchOne(db, key: id)!.checksum }
            let recordAPI = Double(ids.count) / seconds(since: start)
            let statement = try db.makeStatement(sql: "SELECT * FROM person WHERE id = ?")
            var cachedChecksum = 0
            start = now()
            for id in ids { cachedChecksum &+= try Person.fetchOne(statement, arguments: [id])!.checksum }
            let cached = Double(ids.count) / seconds(since: start)
            try expect(cachedChecksum, checksum, "W3 GRDB checksum, cached statement vs record API")
            return Figures(sync: store.sync, [
                "ops_s": .number(recordAPI), "ops_s_cached_stmt": .number(cached), "checksum": .integer(checksum),
            ])
        }
    }

    static func strata(_ store: StrataStore, _ ids: [Int64]) throws -> Figures {
        let realm = store.realm
        var checksum = 0
        let start = now()
        for id in ids { checksum &+= realm.object(ofType: BenchPerson.self, forPrimaryKey: id)!.checksum }
        let rate = Double(ids.count) / seconds(since: start)
        return Figures(sync: store.sync, [
            "ops_s": .number(rate), "ops_s_cached_stmt": .missing, "checksum": .integer(checksum),
        ], note: "ops_s_cached_stmt: Strata has no prepared statements; object(ofType:forPrimaryKey:) is its only path")
    }
}
