// The child process of the crash test (Tests/StrataCrashTests). It commits transactions to the
// store at argv[1] forever and prints "ack <n>" after each commit returns, until the parent
// SIGKILLs it. Every transaction n sets the three counters to n and inserts entry n (erasing entry n - 100), so a
// recovered store that shows the counters differing, or entries missing below the counter,
// proves a torn or lost commit. Every 97th commit is followed by a compaction, so kills also land
// while a new page file is written and renamed over the store (checkpoints run in the background
// on the small threshold the parent gives).
//
// usage: strata-crash-worker <path> <full|normal> <checkpointThreshold> [stall-in-checkpoint]
//
// With `stall-in-checkpoint`, the worker does not compact, and the first checkpoint that writes
// the page file after the store opened (the log rotated, the pages half written: the checkpoint
// window) prints "checkpointing" and stops there, so that the parent's kill lands in it; the
// checkpoint the open itself may run is not stopped.
//
// With `open` in place of the durability and threshold, it only opens the store read-write,
// prints "opened" and exits 0 (the second-process tests' probe: 1 and "worker error: ..." on
// stderr when the store cannot be opened).
#if canImport(Glibc)
import Glibc
#endif
import StrataEngine
import StrataStorage

/// How many of the newest entries the worker keeps (kept in step with the crash test).
let window: Int64 = 100

/// The payload of entry `n`: its length varies so records straddle pages differently.
func payload(_ n: Int64) -> String {
    String(repeating: Character(UnicodeScalar(UInt8(97 + n % 26))), count: Int(n * 7919 % 1500) + 1)
}

func say(_ line: String, to descriptor: Int32 = 1) {
    var bytes = Array((line + "\n").utf8)
    bytes.withUnsafeMutableBytes { raw in
        var done = 0
        while done < raw.count {
            let written = write(descriptor, raw.baseAddress! + done, raw.count - done)
            if written <= 0 { exit(3) }
            done += written
        }
    }
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[2] == "open" {
    do {
        _ = try Store.open(.file(arguments[1]))
        say("opened")
        exit(0)
    } catch {
        say("worker error: \(error)", to: 2)
        exit(1)
    }
}
guard arguments.count == 4 || (arguments.count == 5 && arguments[4] == "stall-in-checkpoint"),
      let threshold = UInt64(arguments[3]) else {
    say("usage: strata-crash-worker <path> (<full|normal> <checkpointThreshold> [stall-in-checkpoint] | open)", to: 2)
    exit(2)
}
let stallsInCheckpoint = arguments.count == 5

/// Stops the thread that first writes the page file, after saying "checkpointing": the parent
/// then kills the process in the middle of that checkpoint.
final class CheckpointStall: StorageObserver {
    let pageFile: String

    init(pageFile: String) { self.pageFile = pageFile }

    func storage(_ event: StorageEvent) {
        guard case .wrote(let path, _, _) = event, path == pageFile else { return }
        say("checkpointing")
        while true { pause() }
    }
}

do {
    var configuration = StoreConfiguration.file(arguments[1], durability: arguments[2] == "normal" ? .normal : .full)
    configuration.checkpointThreshold = threshold
    configuration.cacheSize = 32 << 10  // evictions go on while the worker is killed
    let store = try Store.open(configuration)
    if stallsInCheckpoint { StorageFaults.shared.install(observer: CheckpointStall(pageFile: arguments[1])) }
    let (counters, entries) = try store.write { tx -> (TableKey, TableKey) in
        if let counters = tx.snapshot.tableKey(named: "Counter"), let entries = tx.snapshot.tableKey(named: "Entry") {
            return (counters, entries)
        }
        let counters = try tx.createTable(TableSchema(
            name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("value", .int)], primaryKey: "id"))
        let entries = try tx.createTable(TableSchema(
            name: "Entry", columns: [ColumnSchema("id", .int), ColumnSchema("payload", .string)], primaryKey: "id"))
        for id in 1...3 { try tx.insertObject(into: counters, values: [.int(Int64(id)), .int(0)]) }
        return (counters, entries)
    }
    let table = store.currentSnapshot.table(counters)!
    let counterKeys = (1...3).map { table.object(forPrimaryKey: .int(Int64($0)))! }
    guard case .int(var n) = table.row(counterKeys[0])!.values[1] else { exit(4) }
    say("start \(n)")
    while true {
        n += 1
        try store.write { tx in
            for key in counterKeys {
                try tx.setValue(.int(n), at: PropertyPath(table: counters, object: key, column: 1))
            }
            try tx.insertObject(into: entries, values: [.int(n), .string(payload(n))])
            // Keep the store small: only the last `window` entries stay.
            if let old = tx.snapshot.table(entries)!.object(forPrimaryKey: .int(n - window)) {
                try tx.eraseObject(old, in: entries)
            }
        }
        say("ack \(n)")
        // Now and then a compaction, so that kills land in it too (a new file renamed over the store).
        if n % 97 == 0 && !stallsInCheckpoint { try store.compact() }
    }
} catch {
    say("worker error: \(error)", to: 2)
    exit(1)
}
