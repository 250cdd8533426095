import Foundation
import GRDB
import Strata

/// W8: 10_000 seeded rows; 4 writer threads × 500 transactions, each inserting 1 row
/// (id 10000 + w*500 + j + 1) and adding 1 to the score of row (w*500 + j) % 10000 + 1, while
/// 1 reader thread loops a count and 1 observation of count(*) counts notifications (those
/// carrying a count above the seeded 10_000: GRDB may deliver the initial value twice).
/// Strata's reader loops the same W4(a) count through `where {}` (after `refresh()`), and its
/// observation is `Results.observe` of all rows on a libuv loop thread.
enum W8Contention {
    static let seeded: Int64 = 10_000
    static let (writers, perWriter) = (4, 500)
    static let finalCount = Int(seeded) + writers * perWriter

    static func run(_ table: Table) throws {
        try Comparison.perPairing("W8", .best(of: 3, by: "write_tx_s")) { comparison in
            let pairing = comparison.pairing!
            let result = try comparison.run(grdb: .measure { try grdb(pairing) },
                                            strata: .measure { try strata(pairing) })
            table.add("W8 contention, 4 writers × 500 tx", result, "write_tx_s", unit: "write tx/s", better: .higher)
            if pairing == .normal {
                table.add("W8 concurrent reader, W4(a) count during the writes", result, "reader_qps",
                          unit: "queries/s", better: .higher)
                table.add("W8 count(*) observation notifications (deliveries; fewer = more coalescing)",
                          strata: Table.format(result.strata["notifications"].number ?? 0),
                          grdb: Table.format(result.grdb["notifications"].number ?? 0))
            }
            table.add("W8 final row count 12,000\(Table.durability(pairing))",
                      strata: "\(result.strata["final_count"].cell) \(result.strata["check"].cell)",
                      grdb: "\(result.grdb["final_count"].cell) \(result.grdb["check"].cell)")
        }
    }

    static func newID(_ writer: Int, _ j: Int) -> Int64 { seeded + Int64(writer * perWriter + j + 1) }
    static func updatedID(_ writer: Int, _ j: Int) -> Int64 { Int64((writer * perWriter + j) % Int(seeded) + 1) }

    static func grdb(_ pairing: Pairing) throws -> Figures {
        typealias C = Person.Columns
        let store = try GRDBStore(pairing, seededRows: seeded)
        let pool = store.pool
        let observed = AwaitedValue("W8 count(*)")
        observed.expect(Int(seeded))
        let observation = ValueObservation.tracking(Person.fetchCount)
            .start(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "W8.count")), onError: observed.fail) {
                observed.deliver($0, at: now())
            }
        defer { observation.cancel() }
        _ = try observed.wait()
        observed.expect(finalCount)
        let reader = BackgroundLoop {
            { _ = try pool.read { try Person.filter(C.age > 50 && C.city == "city-3").fetchCount($0) } }
        }
        let run = try Writers.run(threads: writers, perThread: perWriter) { w in
            { j in
                try pool.write { db in
                    try Person(PersonData(id: newID(w, j))).insert(db)
                    try Person.filter(id: updatedID(w, j)).updateAll(db, C.score += 1)
                }
            }
        }
        let readerRate = try reader.stop()
        _ = try observed.wait()
        let updated = try pool.read { try Person.fetchOne($0, key: updatedID(writers - 1, perWriter - 1))!.score }
        return try figures(run, readerRate, notifications: .integer(observed.values.count { $0 > Int(seeded) }),
                           rows: try store.count, updatedScore: updated, store.sync, note: nil)
    }

    static func strata(_ pairing: Pairing) throws -> Figures {
        let store = try StrataStore(pairing, seededRows: seeded)
        let configuration = store.configuration
        let observed = AwaitedValue("W8 count(*)")
        observed.expect(Int(seeded))
        let observer = try StrataObserver(name: "W8.count", configuration: configuration) { realm in
            realm.objects(BenchPerson.self).observe { change in
                switch change {
                case .initial(let results), .update(let results, _, _, _): observed.deliver(results.count, at: now())
                case .error(let error): observed.fail(error)
                }
            }
        }
        defer { observer.stop() }
        _ = try observed.wait()
        observed.expect(finalCount)
        let reader = BackgroundLoop {
            let realm = try Realm(configuration: configuration)
            return {
                realm.refresh()
                _ = realm.objects(BenchPerson.self).where { $0.age > 50 && $0.city == "city-3" }.count
            }
        }
        let run = try Writers.run(threads: writers, perThread: perWriter) { w in
            let realm = try Realm(configuration: configuration)
            return { j in
                try realm.write {
                    realm.add(BenchPerson(PersonData(id: newID(w, j))))
                    realm.object(ofType: BenchPerson.self, forPrimaryKey: updatedID(w, j))!.score += 1
                }
            }
        }
        let readerRate = try reader.stop()
        _ = try observed.wait()
        let lastUpdated = updatedID(writers - 1, perWriter - 1)
        let updated = store.realm.object(ofType: BenchPerson.self, forPrimaryKey: lastUpdated)!
        return try figures(run, readerRate, notifications: .integer(observed.values.count { $0 > Int(seeded) }),
                           rows: store.count, updatedScore: updated.score, store.sync,
                           note: "reader_qps: realm.refresh() + the W4(a) count through where {}")
    }

    /// `updatedScore`: the score of the last row updated, which must have gained exactly 1.
    private static func figures(_ run: Writers.Run, _ readerRate: Double, notifications: Figure, rows: Int,
                                updatedScore: Double, _ sync: String, note: String?) throws -> Figures {
        let check = rows == finalCount ? "ok" : "fail"
        try expect(rows, finalCount, "W8 final row count")
        let lastUpdated = updatedID(writers - 1, perWriter - 1)
        try expect(updatedScore, PersonData(id: lastUpdated).score + 1,
                   "W8 score of id \(lastUpdated) after its update")
        return Figures(sync: sync, [
            "write_tx_s": .number(run.transactionsPerSecond), "reader_qps": .number(readerRate),
            "notifications": notifications, "final_count": .integer(rows), "check": .text(check),
        ], note: note)
    }
}
