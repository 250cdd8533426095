import GRDB
import Strata

/// W6: in ONE write transaction, for ids 1...10000: load the object, set
/// `score = Double(i % 1000) / 10 + 1`, save it (not a set-based UPDATE).
enum W6BulkUpdate {
    static let rows: Int64 = 10_000

    /// `normal` reuses the read fixtures; the `.full` pair gets its own seeded databases.
    static func run(_ normalFixtures: Fixtures, _ table: Table) throws {
        try Comparison.perPairing("W6", .median(of: 5)) { comparison in
            let pairing = comparison.pairing!
            let fixtures = pairing == .normal ? normalFixtures : try Fixtures(pairing)
            let result = try comparison.run(grdb: .measure { try grdb(fixtures.grdb) },
                                            strata: .measure { try strata(fixtures.strata) })
            table.add("W6 bulk update, 10k load+set+save in 1 tx", result, "rows_s", unit: "rows/s", better: .higher)
        }
    }

    static func grdb(_ store: GRDBStore) throws -> Figures {
        let start = now()
        try store.pool.write { db in
            for id in 1...rows {
                var person = try Person.fetchOne(db, key: id)!
                person.score = PersonData.updatedScore(id)
                try person.update(db, columns: ["score"])
            }
        }
        let elapsed = seconds(since: start)
        let last = try store.pool.read { try Person.fetchOne($0, key: rows)!.score }
        return try figures(elapsed, lastScore: last, store.sync)
    }

    static func strata(_ store: StrataStore) throws -> Figures {
        let realm = store.realm
        let start = now()
        try realm.write {
            for id in 1...rows {
                realm.object(ofType: BenchPerson.self, forPrimaryKey: id)!.score = PersonData.updatedScore(id)
            }
        }
        let elapsed = seconds(since: start)
        return try figures(elapsed, lastScore: realm.object(ofType: BenchPerson.self, forPrimaryKey: rows)!.score,
                           store.sync)
    }

    private static func figures(_ elapsed: Double, lastScore: Double, _ sync: String) throws -> Figures {
        try expect(lastScore, PersonData.updatedScore(rows), "W6 score of id \(rows) after the update")
        return Figures(sync: sync, ["rows_s": .number(Double(rows) / elapsed), "rows": .integer(Int(rows))])
    }
}
