import Foundation
import GRDB
@_spi(Benchmarks) import StrataEngine

// strata-bench: the workloads described in BENCHMARKS.md on Strata and GRDB.swift side by side, in one process,
// alternating GRDB and Strata repetition by repetition. Prints one JSON line per workload per
// store, then a markdown table. Usage: strata-bench [--quick] [--only W1,W7,scaling,scale,…]
// [--scale-full | --scale-rows 1000000,5000000] [--scale-plot scale.svg]
if let store = Options.value(after: W9Memory.childFlag) {
    do { try W9Memory.childMain(store) } catch {
        FileHandle.standardError.write(Data("W9 child failed: \(error)\n".utf8))
        exit(1)
    }
}
if let index = CommandLine.arguments.firstIndex(of: ScaleChild.flag) {
    do { try ScaleChild.main(Array(CommandLine.arguments[(index + 1)...])) } catch {
        FileHandle.standardError.write(Data("scale child failed: \(error)\n".utf8))
        exit(1)
    }
}
if CommandLine.arguments.contains("--profile-property-access") {
    // The accessor figures alone, each printed, for `perf record`. In a scope of its own, so that
    // the store (and its scratch directory) is gone before `exit`, which runs no deinitializers.
    do {
        let store = try StrataStore(.normal, seededRows: PropertyAccess.rows)
        print(try PropertyAccess.intRead(store), "ns per Int read")
        print(try PropertyAccess.stringIteration(store), "ns per object iterating Results reading a String")
        print(try PropertyAccess.primaryKeyLookup(store), "ns per primary-key lookup")
        print(try PropertyAccess.intWrite(store), "ns per Int set")
    }
    exit(0)
}
if let figure = Options.value(after: "--profile-property") {
    // One accessor figure, 20 runs, for `perf record`: int-read, iteration, pk-lookup, int-set,
    // scan (W4a's filtered count, ns per row) or filtered-sort (W5, ms). With `--checkpointed`,
    // a checkpoint runs after seeding, so the rows are read as a checkpointed store holds them
    // (packed column by column) rather than as the seeding transaction left them. `--rows N`
    // seeds N objects instead of 100,000 (int-read, iteration, pk-lookup and int-set only).
    if PropertyAccess.rows != PropertyAccess.defaultRows, ["scan", "filtered-sort"].contains(figure) {
        fatalError("--rows is for int-read, iteration, pk-lookup and int-set: \(figure) checks counts of 100,000 rows")
    }
    // The store in a scope of its own, as above.
    do {
        let store = try StrataStore(.normal, seededRows: PropertyAccess.rows)
        if CommandLine.arguments.contains("--checkpointed") {
            try StoreProbe(path: store.configuration.fileURL!.path, durability: .normal).checkpoint()
        }
        let measure: (StrataStore) throws -> Double = switch figure {
        case "int-read": PropertyAccess.intRead
        case "iteration": PropertyAccess.stringIteration
        case "pk-lookup": PropertyAccess.primaryKeyLookup
        case "int-set": PropertyAccess.intWrite
        case "scan": PropertyAccess.filteredScan
        case "filtered-sort": { try W5FilteredSort.strata($0)["ms"].number ?? 0 }
        default: fatalError("--profile-property takes int-read, iteration, pk-lookup, int-set, scan or filtered-sort")
        }
        for _ in 0..<20 { print(try measure(store), "ns (\(figure))") }
    }
    exit(0)
}

let mode = Options.quick ? "--quick (1 run per figure, W7 with 100 commits)" : "full"
let sqliteVersion = try DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") ?? "?" }
let header = "strata-bench \(mode) — \(Machine.header) — GRDB 7.10.0, SQLite \(sqliteVersion)"
print("# " + header)
if Machine.loadAverage > 0.5 {
    print("# WARNING: load average \(Machine.loadAverage) on \(Machine.cores) cores: other processes are running, "
          + "so the figures are noisy (the comparison wants an idle machine)")
}
fflush(nil)

let started = now()
let table = Table()
do {
    if Options.runs("W1") { try W1BulkInsert.run(table) } // first: W9 is about W1's peak (W9 uses fresh processes)
    if Options.runs("W2") { try W2SmallTransactions.run(table) }
    if ["W3", "W4", "W5", "W6"].contains(where: Options.runs) { // the seeded 100k-row databases, closed before W7
        let fixtures = try Fixtures(.normal)
        try SanityCounts.run(fixtures)
        if Options.runs("W3") { try W3PointLookups.run(fixtures, table) }
        if Options.runs("W4") { try W4Queries.run(fixtures, table) }
        if Options.runs("W5") { try W5FilteredSort.run(fixtures, table) }
        if Options.runs("W6") { try W6BulkUpdate.run(fixtures, table) }
    }
    if Options.runs("W7") { try W7Observation.run(table) }
    if Options.runs("scaling") { try NotificationScaling.run(table) }
    if Options.runs("W8") { try W8Contention.run(table) }
    if Options.runs("W9") { try W9Memory.run(table) }
    if Options.runs("property") { try PropertyAccess.run(table) }
    if Options.runs("groupcommit") { try GroupCommit.run(table) }
    if Options.runs("allocations") { try Allocations.run(table) }
    if Options.runs("scale") { try ScaleSeries.run(table) } // last: minutes of building large stores
} catch {
    print("BENCHMARK FAILED: \(error)")
    FileHandle.standardError.write(Data("BENCHMARK FAILED: \(error)\n".utf8))
    exit(1)
}
print("")
print(table.markdown(title: "## " + header))
print("")
print(String(format: "total time: %.0f s; load average (1 min) at the end: %.2f", seconds(since: started),
             Machine.loadAverage))
