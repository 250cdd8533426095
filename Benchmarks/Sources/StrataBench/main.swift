import Foundation
import Strata

// strata-bench: measures Strata on WORKLOAD.md's workloads.
// Usage: strata-bench [--quick]
let quick = CommandLine.arguments.contains("--quick")
if CommandLine.arguments.contains("--profile-property-read") {
    // A long run of one workload, for `perf record`.
    print(try ModelWorkloads.propertyRead(accesses: 20_000_000), "ns/read")
    exit(0)
}
let scale: Int64 = quick ? 1 : 1

print("# strata-bench \(quick ? "--quick" : "(full)")  date: \(Date())  cores: \(ProcessInfo.processInfo.activeProcessorCount)")
print("| workload | durability | figure |")
print("|---|---|---|")

func best(of repetitions: Int, _ body: () throws -> Double) rethrows -> Double {
    var results: [Double] = []
    for _ in 0..<repetitions { results.append(try body()) }
    return results.max() ?? 0
}

do {
    for durability in [Durability.normal, .full] {
        let rows = try best(of: 3) { try EngineWorkloads.bulkInsert(rows: 100_000 * scale, durability: durability) }
        print("| W1 bulk insert 100k rows | .\(durability) | \(Int(rows)) rows/s |")
    }
    for durability in [Durability.normal, .full] {
        var runs: [(Double, Double, Double)] = []
        for _ in 0..<3 { runs.append(try EngineWorkloads.smallTransactions(count: 2_000, durability: durability)) }
        let run = runs.max { $0.0 < $1.0 }!
        print("| W2 one-row transactions | .\(durability) | \(Int(run.0)) tx/s, p50 \(Int(run.1)) µs, p99 \(Int(run.2)) µs |")
    }
    let read = try ModelWorkloads.propertyRead(accesses: 1_000_000)
    print("| managed property read | - | \(String(format: "%.0f", read)) ns/access |")
    let write = try ModelWorkloads.propertyWrite(accesses: 100_000)
    print("| managed property write (in one write) | - | \(String(format: "%.0f", write)) ns/access |")
    for threads in [1, 2, 4, 8] {
        let (rate, syncs) = try EngineWorkloads.groupCommit(threads: threads, perThread: 2_000 / threads, durability: .full)
        print("| group commit, \(threads) writer threads | .full | \(Int(rate)) tx/s, \(String(format: "%.2f", syncs)) syncs/commit |")
    }
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}
