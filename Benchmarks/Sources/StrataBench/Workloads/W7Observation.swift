import Foundation
import GRDB
import Strata

/// W7: observation latency on 100k rows. O1 = count(age > 50) (a scan), O2 = rows in
/// "city-3" as objects. A writer commits single-row inserts (id 100001…, age 99, city-3) and
/// waits until both observers delivered the value of each commit before the next one.
/// Latency = commit instant (GRDBCommitClock / StrataCommitClock) → callback entry. GRDB runs
/// two modes: `W7` (`ValueObservation.tracking`) and `W7c` (`trackingConstantRegion`); Strata
/// runs its one mode in both rows: incremental change sets computed on its notifier thread,
/// delivered on two libuv loop threads (one per observation). O1's callback reads the count; O2's
/// reads the count and every inserted object (GRDB's O2 fetches all 6,250 rows each time: that
/// is its model, not extra work we ask of it).
enum W7Observation {
    /// 500 commits (100 with `--quick`, which says so in every line).
    static var commits: Int { Options.quick ? 100 : 500 }

    static func run(_ table: Table) throws {
        for (workload, constantRegion) in [("W7", false), ("W7c", true)] {
            let comparison = Comparison(workload: workload, pairing: .normal,
                                        repetition: .best(of: 3, by: "o1_p50_us", higherIsBetter: false))
            let result = try comparison.run(
                grdb: .measure { try grdb(constantRegion: constantRegion) },
                strata: .measure { try strata() })
            let mode = constantRegion ? "trackingConstantRegion" : "tracking"
            let figures = [("O1 count(age > 50)", "o1"), ("O2 city-3 rows", "o2"), ("writer write()", "write")]
            for (name, prefix) in figures {
                let keys = prefix == "write" ? ["p50", "p99"] : ["p50", "p99", "max"]
                func cell(_ figures: Figures) -> String {
                    keys.map { Table.format(figures["\(prefix)_\($0)_us"].number ?? 0) }.joined(separator: " / ")
                }
                let grdbP50 = result.grdb["\(prefix)_p50_us"].number ?? 0
                let strataP50 = result.strata["\(prefix)_p50_us"].number ?? 0
                let ratio = strataP50 > 0 ? String(format: "%.2f× (p50)", grdbP50 / strataP50) : "—"
                table.add("\(workload) \(name) latency \(keys.joined(separator: "/")) (µs) — GRDB \(mode)",
                          strata: cell(result.strata), grdb: cell(result.grdb), ratio: ratio)
            }
        }
    }

    static func grdb(constantRegion: Bool) throws -> Figures {
        typealias C = Person.Columns
        let store = try GRDBStore(.normal, seededRows: Expected.rows)
        let pool = store.pool
        let clock = try GRDBCommitClock.install(on: pool)
        let o1 = AwaitedValue("W7 O1"), o2 = AwaitedValue("W7 O2")
        o1.expect(Expected.ageOver50)
        o2.expect(Expected.city3)
        let count = observation(constantRegion) { try Person.filter(C.age > 50).fetchCount($0) }
            .start(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "W7.O1")), onError: o1.fail) { value in
                let entry = now()
                o1.deliver(value, at: entry)
            }
        let rows = observation(constantRegion) { try Person.filter(C.city == "city-3").fetchAll($0) }
            .start(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "W7.O2")), onError: o2.fail) { people in
                let entry = now()
                o2.deliver(people.count, at: entry)
            }
        defer { count.cancel(); rows.cancel() }
        _ = try o1.wait()
        _ = try o2.wait()

        var (latency1, latency2, writes) = ([Double](), [Double](), [Double]())
        for k in 1...commits {
            o1.expect(Expected.ageOver50 + k)
            o2.expect(Expected.city3 + k)
            var person = Person(PersonData(id: Expected.rows + Int64(k)))
            (person.age, person.city) = (99, "city-3")
            let begin = now()
            try pool.write { try person.insert($0) }
            let end = now()
            let committed = clock.lastCommit
            try expect(committed > begin && committed <= end, true, "W7 commit stamp inside write()")
            writes.append(micros(begin, end))
            latency1.append(micros(committed, try o1.wait()))
            latency2.append(micros(committed, try o2.wait()))
        }
        return Figures(sync: store.sync, [
            "mode": .text(constantRegion ? "ValueObservation.trackingConstantRegion" : "ValueObservation.tracking"),
            "commits": .integer(commits),
            "o1_p50_us": .number(percentile(latency1, 0.5)), "o1_p99_us": .number(percentile(latency1, 0.99)),
            "o1_max_us": .number(latency1.max() ?? 0),
            "o2_p50_us": .number(percentile(latency2, 0.5)), "o2_p99_us": .number(percentile(latency2, 0.99)),
            "o2_max_us": .number(latency2.max() ?? 0),
            "write_p50_us": .number(percentile(writes, 0.5)), "write_p99_us": .number(percentile(writes, 0.99)),
        ])
    }

    static func strata() throws -> Figures {
        let store = try StrataStore(.normal, seededRows: Expected.rows, commitClock: true)
        let clock = store.clock!
        let o1 = AwaitedValue("W7 O1"), o2 = AwaitedValue("W7 O2")
        let checksums = Locked(0)
        o1.expect(Expected.ageOver50)
        o2.expect(Expected.city3)
        let count = try StrataObserver(name: "W7.O1", configuration: store.configuration) { realm in
            realm.objects(BenchPerson.self).where { $0.age > 50 }.observe { change in
                let entry = now()
                switch change {
                case .initial(let results), .update(let results, _, _, _): o1.deliver(results.count, at: entry)
                case .error(let error): o1.fail(error)
                }
            }
        }
        let rows = try StrataObserver(name: "W7.O2", configuration: store.configuration) { realm in
            realm.objects(BenchPerson.self).where { $0.city == "city-3" }.observe { change in
                let entry = now()
                switch change {
                case .initial(let results):
                    o2.deliver(results.count, at: entry)
                case .update(let results, _, let insertions, _):
                    // Materialize the inserted objects (every property read).
                    let checksum = insertions.reduce(0) { $0 &+ results[$1].checksum }
                    o2.deliver(results.count, at: entry)
                    checksums.withLock { $0 &+= checksum }
                case .error(let error):
                    o2.fail(error)
                }
            }
        }
        defer {
            count.stop()
            rows.stop()
        }
        _ = try o1.wait()
        _ = try o2.wait()

        var (latency1, latency2, writes) = ([Double](), [Double](), [Double]())
        for k in 1...commits {
            o1.expect(Expected.ageOver50 + k)
            o2.expect(Expected.city3 + k)
            let person = BenchPerson(PersonData(id: Expected.rows + Int64(k)))
            (person.age, person.city) = (99, "city-3")
            let begin = now()
            try store.realm.write { store.realm.add(person) }
            let end = now()
            let committed = clock.lastCommit
            try expect(committed > begin && committed <= end, true, "W7 commit stamp inside write()")
            writes.append(micros(begin, end))
            let (arrived1, arrived2) = (try o1.wait(), try o2.wait())
            // The clock registered before the notifier and publish observers run in
            // registration order: no callback can be entered before the stamp.
            try expect(arrived1 >= committed && arrived2 >= committed, true, "W7 callbacks after the commit stamp")
            latency1.append(micros(committed, arrived1))
            latency2.append(micros(committed, arrived2))
        }
        return Figures(sync: store.sync, [
            "mode": .text("incremental change sets on the notifier thread, delivered on libuv loop threads"),
            "o2_checksum": .integer(checksums.current),
            "commits": .integer(commits),
            "o1_p50_us": .number(percentile(latency1, 0.5)), "o1_p99_us": .number(percentile(latency1, 0.99)),
            "o1_max_us": .number(latency1.max() ?? 0),
            "o2_p50_us": .number(percentile(latency2, 0.5)), "o2_p99_us": .number(percentile(latency2, 0.99)),
            "o2_max_us": .number(latency2.max() ?? 0),
            "write_p50_us": .number(percentile(writes, 0.5)), "write_p99_us": .number(percentile(writes, 0.99)),
        ])
    }

    private static func observation<Value>(_ constantRegion: Bool,
                                           _ fetch: @escaping @Sendable (Database) throws -> Value)
        -> ValueObservation<ValueReducers.Fetch<Value>> {
        constantRegion ? .trackingConstantRegion(fetch) : .tracking(fetch)
    }
}
