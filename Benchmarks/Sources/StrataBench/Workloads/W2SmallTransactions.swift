import GRDB
import Strata
@_spi(Benchmarks) import StrataEngine

/// W2: 2_000 write transactions, each inserting one row (ids 1...2000), from one thread.
/// The group-commit extra reuses it with several writer threads.
enum W2SmallTransactions {
    static let transactions = 2_000

    static func run(_ table: Table) throws {
        try Comparison.perPairing("W2", .best(of: 3, by: "tx_s")) { comparison in
            let pairing = comparison.pairing!
            let result = try comparison.run(grdb: .measure { try grdb(pairing, threads: 1) },
                                            strata: .measure { try strata(pairing, threads: 1) })
            table.add("W2 one-row transactions", result, "tx_s", unit: "tx/s", better: .higher)
            table.add("W2 latency p50", result, "p50_us", unit: "µs", better: .lower)
            table.add("W2 latency p99", result, "p99_us", unit: "µs", better: .lower)
        }
    }

    /// `threads` writers × (2000 / threads) one-row transactions; ids 1...2000.
    static func grdb(_ pairing: Pairing, threads: Int) throws -> Figures {
        let store = try GRDBStore(pairing)
        let pool = store.pool
        let perThread = transactions / threads
        let run = try Writers.run(threads: threads, perThread: perThread) { thread in
            { j in try pool.write { db in try Person(PersonData(id: Int64(thread * perThread + j + 1))).insert(db) } }
        }
        return try figures(run, rows: try store.count, threads: threads, store.sync, syncsPerCommit: .missing)
    }

    static func strata(_ pairing: Pairing, threads: Int) throws -> Figures {
        let store = try StrataStore(pairing)
        let configuration = store.configuration
        let perThread = transactions / threads
        let run = try Writers.run(threads: threads, perThread: perThread) { thread in
            let realm = try Realm(configuration: configuration)
            return { j in
                try realm.write { realm.add(BenchPerson(PersonData(id: Int64(thread * perThread + j + 1)))) }
            }
        }
        let statistics = try store.statistics
        let syncs = statistics.commits == 0 ? 0 : Double(statistics.groupSyncs) / Double(statistics.commits)
        return try figures(run, rows: store.count, threads: threads, store.sync,
                           syncsPerCommit: pairing == .full ? .number(syncs) : .missing)
    }

    private static func figures(_ run: Writers.Run, rows: Int, threads: Int, _ sync: String,
                                syncsPerCommit: Figure) throws -> Figures {
        try expect(rows, transactions, "W2 row count (\(threads) writer threads)")
        return Figures(sync: sync, [
            "tx_s": .number(run.transactionsPerSecond), "p50_us": .number(percentile(run.latencies, 0.5)),
            "p99_us": .number(percentile(run.latencies, 0.99)), "threads": .integer(threads),
            "syncs_per_commit": syncsPerCommit,
        ])
    }
}
