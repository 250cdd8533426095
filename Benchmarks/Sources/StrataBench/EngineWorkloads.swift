import Foundation
import Strata

/// Engine-level workloads (WORKLOAD.md's data model on the raw `Store` API): bulk insert,
/// small durable transactions, and group commit under concurrent writers.
enum EngineWorkloads {
    static let personSchema = TableSchema(
        name: "Person",
        columns: [
            ColumnSchema("id", .int), ColumnSchema("name", .string, isIndexed: true), ColumnSchema("age", .int),
            ColumnSchema("score", .double), ColumnSchema("city", .string), ColumnSchema("createdAt", .timestamp),
        ],
        primaryKey: "id")

    /// Row `i` of WORKLOAD.md.
    static func person(_ i: Int64) -> [Value] {
        [.int(i), .string("name-\(i)"), .int(i % 100), .double(Double(i % 1000) / 10), .string("city-\(i % 16)"),
         .timestamp(Timestamp(seconds: 1_704_067_200 + i))]
    }

    static func open(_ scratch: Scratch, _ durability: Durability) throws -> (Store, TableKey) {
        let store = try Store.open(.file(scratch.path + "/bench.strata", durability: durability))
        let table = try store.write { try $0.createTable(personSchema) }
        return (store, table)
    }

    /// W1: 100k rows in one transaction. Returns rows/s.
    static func bulkInsert(rows: Int64, durability: Durability) throws -> Double {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (store, table) = try open(scratch, durability)
        let start = now()
        try store.write { tx in
            for i in 1...rows { try tx.insertObject(into: table, values: person(i)) }
        }
        return Double(rows) / seconds(since: start)
    }

    /// W2: one-row transactions from one thread. Returns (tx/s, p50 µs, p99 µs).
    static func smallTransactions(count: Int64, durability: Durability) throws -> (Double, Double, Double) {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (store, table) = try open(scratch, durability)
        var latencies: [Double] = []
        latencies.reserveCapacity(Int(count))
        let start = now()
        for i in 1...count {
            let begin = now()
            try store.write { tx in _ = try tx.insertObject(into: table, values: person(i)) }
            latencies.append(Double(now() - begin) / 1000)
        }
        let rate = Double(count) / seconds(since: start)
        return (rate, percentile(latencies, 0.5), percentile(latencies, 0.99))
    }

    /// Group commit: `threads` writers each commit `perThread` one-row transactions.
    /// Returns (total tx/s, syncs per commit).
    static func groupCommit(threads: Int, perThread: Int, durability: Durability) throws -> (Double, Double) {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (store, table) = try open(scratch, durability)
        let failures = Counter()
        // Real threads: DispatchQueue.concurrentPerform would cap the writers at the core count.
        let done = DispatchGroup()
        let start = now()
        for thread in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                for j in 0..<perThread {
                    let id = Int64(thread * perThread + j + 1)
                    do {
                        try store.write { tx in _ = try tx.insertObject(into: table, values: person(id)) }
                    } catch {
                        failures.increment()
                    }
                }
                done.leave()
            }
        }
        done.wait()
        let elapsed = seconds(since: start)
        precondition(failures.value == 0, "group commit workload had failures")
        precondition(store.currentSnapshot.table(table)!.count == threads * perThread, "row count mismatch")
        let stats = store.statistics
        let syncsPerCommit = stats.commits == 0 ? 0 : Double(stats.groupSyncs) / Double(stats.commits)
        return (Double(threads * perThread) / elapsed, syncsPerCommit)
    }
}

/// A thread-safe counter for the workloads.
final class Counter: @unchecked Sendable {
    // Safety: every access holds `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
