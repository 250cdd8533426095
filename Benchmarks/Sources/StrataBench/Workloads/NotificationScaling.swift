import Foundation
import GRDB
import Strata

/// The notification scaling series (issue "Benchmarks"): the per-commit cost of a one-object
/// change observed through `age > 50 ORDER BY score DESC` over N rows, N = 1k, 10k, 100k, 1M
/// (`--quick`: up to 100k). Each commit sets one matching row's score to a new maximum (so the
/// row moves to the front); the figure is commit start → callback entry that shows the new
/// first score (GRDB: `ValueObservation.tracking` re-fetching the rows, on a serial queue;
/// Strata: `Results.observe` on a libuv loop thread, reading `first`), and the writer's
/// `write()` duration.
enum NotificationScaling {
    static var sizes: [Int64] { Options.quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000] }
    static var commits: Int { Options.quick ? 20 : 50 }
    /// The first id whose generated age is over 50: the row each commit changes.
    static let changedID: Int64 = (1...Int64(1_000)).first { PersonData(id: $0).age > 50 }!

    static func run(_ table: Table) throws {
        var growth: [String: (first: Double, last: Double)] = [:]
        for size in sizes {
            let comparison = Comparison(workload: "notify_scaling_\(size)", pairing: .normal,
                                        repetition: .best(of: 1, by: "callback_p50_us", higherIsBetter: false))
            let result = try comparison.run(grdb: .measure { try grdb(size) }, strata: .measure { try strata(size) })
            table.add("notification cost, 1-object change, \(size) rows: commit → callback p50", result,
                      "callback_p50_us", unit: "µs", better: .lower)
            table.add("notification cost, \(size) rows: writer write() p50", result, "write_p50_us", unit: "µs",
                      better: .lower)
            for (store, figures) in [("GRDB", result.grdb), ("Strata", result.strata)] {
                let value = figures["callback_p50_us"].number ?? 0
                let previous = growth[store]
                growth[store] = (previous?.first ?? value, value)
            }
        }
        func factor(_ store: String) -> String {
            guard let entry = growth[store], entry.first > 0 else { return "—" }
            return String(format: "%.1f×", entry.last / entry.first)
        }
        table.add("notification cost growth, \(sizes.first!) → \(sizes.last!) rows (p50 ratio)",
                  strata: factor("Strata"), grdb: factor("GRDB"))
    }

    static func strata(_ size: Int64) throws -> Figures {
        let store = try StrataStore(.normal, seededRows: size)
        let awaited = AwaitedValue("scaling \(size)")
        awaited.expect(-1)
        let observer = try StrataObserver(name: "scaling", configuration: store.configuration) { realm in
            realm.objects(BenchPerson.self).where { $0.age > 50 }.sorted(byKeyPath: "score", ascending: false)
                .observe { change in
                    let entry = now()
                    switch change {
                    case .initial: awaited.deliver(-1, at: entry)
                    case .update(let results, _, _, _): awaited.deliver(Int(results.first?.score ?? 0), at: entry)
                    case .error(let error): awaited.fail(error)
                    }
                }
        }
        defer { observer.stop() }
        _ = try awaited.wait()
        var (callbacks, writes) = ([Double](), [Double]())
        for k in 1...commits {
            let marker = 1_000_000 + k
            awaited.expect(marker)
            let begin = now()
            try store.realm.write { store.realm.object(ofType: BenchPerson.self, forPrimaryKey: changedID)!.score = Double(marker) }
            writes.append(micros(begin, now()))
            callbacks.append(micros(begin, try awaited.wait()))
        }
        return figures(store.sync, callbacks, writes)
    }

    static func grdb(_ size: Int64) throws -> Figures {
        typealias C = Person.Columns
        let store = try GRDBStore(.normal, seededRows: size)
        let awaited = AwaitedValue("scaling \(size)")
        let initial = try store.pool.read { try Person.filter(C.age > 50).order(C.score.desc).fetchOne($0) }
        awaited.expect(Int(initial?.score ?? 0))
        let observation = ValueObservation.tracking { try Person.filter(C.age > 50).order(C.score.desc).fetchAll($0) }
            .start(in: store.pool, scheduling: .async(onQueue: DispatchQueue(label: "scaling")), onError: awaited.fail) { people in
                let entry = now()
                awaited.deliver(Int(people.first?.score ?? 0), at: entry)
            }
        defer { observation.cancel() }
        _ = try awaited.wait()
        var (callbacks, writes) = ([Double](), [Double]())
        for k in 1...commits {
            let marker = 1_000_000 + k
            awaited.expect(marker)
            let begin = now()
            try store.pool.write { db in
                try db.execute(sql: "UPDATE person SET score = ? WHERE id = ?", arguments: [Double(marker), changedID])
            }
            writes.append(micros(begin, now()))
            callbacks.append(micros(begin, try awaited.wait()))
        }
        return figures(store.sync, callbacks, writes)
    }

    private static func figures(_ sync: String, _ callbacks: [Double], _ writes: [Double]) -> Figures {
        Figures(sync: sync, [
            "commits": .integer(callbacks.count),
            "callback_p50_us": .number(percentile(callbacks, 0.5)), "callback_p99_us": .number(percentile(callbacks, 0.99)),
            "write_p50_us": .number(percentile(writes, 0.5)),
        ])
    }
}
