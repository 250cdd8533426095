import GRDB
import Strata

/// W5: all rows with `age < 10` sorted by `score` descending, materialized (10_000 objects).
enum W5FilteredSort {
    static func run(_ fixtures: Fixtures, _ table: Table) throws {
        let comparison = Comparison(workload: "W5", pairing: nil, repetition: .median(of: 5))
        let result = try comparison.run(grdb: .measure { try grdb(fixtures.grdb) },
                                        strata: .measure { try strata(fixtures.strata) })
        table.add("W5 filtered sort, age < 10 by score desc", result, "ms", unit: "ms", better: .lower)
    }

    static func grdb(_ store: GRDBStore) throws -> Figures {
        typealias C = Person.Columns
        return try store.pool.read { db in
            let start = now()
            let people = try Person.filter(C.age < 10).order(C.score.desc).fetchAll(db)
            let elapsed = seconds(since: start)
            try expect(people.count, Expected.ageUnder10, "W5 rows")
            try expect(zip(people, people.dropFirst()).allSatisfy { $0.score >= $1.score }, true, "W5 order")
            return Figures(sync: store.sync, ["ms": .number(elapsed * 1000), "rows": .integer(people.count)])
        }
    }

    /// The same through Strata: filter, sort, and read every object's six properties.
    static func strata(_ store: StrataStore) throws -> Figures {
        let start = now()
        let people = Array(store.realm.objects(BenchPerson.self).where { $0.age < 10 }
            .sorted(byKeyPath: "score", ascending: false))
        var checksum = 0
        for person in people { checksum &+= person.checksum }
        let elapsed = seconds(since: start)
        try expect(people.count, Expected.ageUnder10, "W5 rows")
        try expect(zip(people, people.dropFirst()).allSatisfy { $0.score >= $1.score }, true, "W5 order")
        return Figures(sync: store.sync, ["ms": .number(elapsed * 1000), "rows": .integer(people.count)])
    }
}
