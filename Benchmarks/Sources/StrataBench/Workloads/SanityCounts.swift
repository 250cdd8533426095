import GRDB
import Strata

/// The workload's derived facts on the 100_000-row fixtures, for both stores. Strata has no
/// queries yet, so its counts come from a scan of every object (untimed).
enum SanityCounts {
    static func run(_ fixtures: Fixtures) throws {
        let comparison = Comparison(workload: "sanity", pairing: nil, repetition: .median(of: 1))
        let result = try comparison.run(grdb: .measure { try grdb(fixtures.grdb) },
                                        strata: .measure { try strata(fixtures.strata) })
        for figures in [result.grdb, result.strata] {
            for (key, expected) in [("rows", Int(Expected.rows)), ("age_gt_50_and_city_3", Expected.ageOver50City3),
                                    ("age_gt_50", Expected.ageOver50), ("city_3", Expected.city3),
                                    ("age_lt_10", Expected.ageUnder10)] {
                try expect(figures[key].number.map(Int.init), expected, "sanity count \(key)")
            }
        }
    }

    static func grdb(_ store: GRDBStore) throws -> Figures {
        typealias C = Person.Columns
        return try store.pool.read { db in
            Figures(sync: store.sync, [
                "rows": .integer(try Person.fetchCount(db)),
                "age_gt_50_and_city_3": .integer(try Person.filter(C.age > 50 && C.city == "city-3").fetchCount(db)),
                "age_gt_50": .integer(try Person.filter(C.age > 50).fetchCount(db)),
                "city_3": .integer(try Person.filter(C.city == "city-3").fetchCount(db)),
                "age_lt_10": .integer(try Person.filter(C.age < 10).fetchCount(db)),
            ])
        }
    }

    static func strata(_ store: StrataStore) throws -> Figures {
        var counts = (rows: 0, both: 0, age: 0, city: 0, young: 0)
        for person in store.realm.objects(BenchPerson.self) {
            let (age, city3) = (person.age, person.city == "city-3")
            counts.rows += 1
            if age > 50 { counts.age += 1 }
            if age > 50 && city3 { counts.both += 1 }
            if city3 { counts.city += 1 }
            if age < 10 { counts.young += 1 }
        }
        return Figures(sync: store.sync, [
            "rows": .integer(counts.rows), "age_gt_50_and_city_3": .integer(counts.both),
            "age_gt_50": .integer(counts.age), "city_3": .integer(counts.city), "age_lt_10": .integer(counts.young),
        ], note: "counted by reading every object's properties, independently of the query engine (W4 and W5 check the queries)")
    }
}
