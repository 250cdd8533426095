import Foundation
import StrataEngine
import StrataSupport

/// The traced workload: four writer threads commit ledger transactions to a store with a small
/// checkpoint threshold, so the trace holds appends, group syncs, segment rotations,
/// checkpoints (page writes, syncs, header slot writes) and segment removals; half way through,
/// the first thread compacts the store (a new page file written and renamed over it) while the
/// others go on committing, and the second commits one large transaction (``Ledger/isLarge(_:)``)
/// whose log record is streamed from its scratch file in several writes, the header last.
enum PowerLossWorkload {
    static let threads = 4
    static let commitsPerThread = 40
    static let checkpointThreshold: UInt64 = 16 << 10

    /// Runs the workload in a fresh directory and returns its trace.
    static func record(durability: Durability) throws -> [TraceEvent] {
        // On a disk (not in memory), so that syncs take time and commits pile up behind them.
        let directory = try TemporaryDirectory.create(prefix: "strata-powerloss")
        defer { directory.remove() }
        let failures = FailureLog()
        let trace = try IOTraceRecorder.record(directory: directory.path) { recorder in
            let released = WeakStore()
            do {
                var configuration = StoreConfiguration.file(directory.file("store.strata"), durability: durability)
                configuration.checkpointThreshold = checkpointThreshold
                configuration.instructionSpoolBytes = Ledger.largeCommitSpoolBytes
                let store = try Store.open(configuration)
                released.store = store
                try Ledger.createTables(in: store)
                recorder.acknowledge(Ledger.schemaCommit)
                let finished = runOnThreads(threads) { thread in
                    for index in 0..<commitsPerThread {
                        let id = thread == 1 && index == commitsPerThread / 4
                            ? Int64(thread + 1) * 10_000 + 999 : Int64(thread + 1) * 10_000 + Int64(index)
                        do {
                            try Ledger.commit(id, to: store)
                            recorder.acknowledge(id)
                            if thread == 0 && index == commitsPerThread / 2 { try store.compact() }
                        } catch {
                            failures.record("commit \(id): \(error)")
                            return
                        }
                    }
                }
                if !finished { failures.record("the writer threads did not finish in time") }
            }
            // A background checkpoint may still be running; let it finish inside the trace.
            if !waitUntil(timeout: 20, { released.store == nil }) { failures.record("the store was not released") }
        }
        if let failure = failures.all.first {
            throw StrataError(.wrongState, "the power-loss workload failed: \(failure)")
        }
        return trace
    }
}

/// A weak reference, to see when the last strong reference to a store is gone.
final class WeakStore: @unchecked Sendable {
    // Safety: written once before any other thread sees the object, then only read; `weak`
    // loads are atomic.
    weak var store: Store?
}

/// Opens one crash state with the real store and checks it.
enum CrashStateCheck {
    enum Outcome {
        /// `Store.open` threw.
        case refused(any Error)
        /// The store opened; what it held.
        case opened(Found)
    }

    struct Found {
        /// Acknowledged durable commits that are missing.
        var lost: Set<Int64> = []
        /// Partial or damaged transactions.
        var problems: [String] = []
        /// What went wrong committing to the recovered store and reopening it, if anything.
        var reopenFailure: String?
    }

    /// The id of the commit made on a recovered store.
    static let afterCrashCommit: Int64 = 999_999

    /// Writes `files` into a fresh directory, opens the store there and checks that it holds every
    /// commit of `durable` and no partial transaction; with `reopen`, also commits once more,
    /// reopens and checks again.
    static func run(files: [String: [UInt8]], durability: Durability, durable: Set<Int64>, reopen: Bool) throws -> Outcome {
        let directory = try TemporaryDirectory.create(
            prefix: "strata-powerloss-state", in: TemporaryDirectory.memoryBackedParent)
        defer { directory.remove() }
        for (name, bytes) in files {
            guard FileManager.default.createFile(atPath: directory.file(name), contents: Data(bytes)) else {
                throw StrataError(.fileAccess, "cannot write the crash state", path: directory.file(name))
            }
        }
        let configuration = StoreConfiguration.file(directory.file("store.strata"), durability: durability)
        var found = Found()
        do {
            let store = try Store.open(configuration)
            let contents = Ledger.contents(of: store.currentSnapshot)
            found.lost = durable.subtracting(contents.commits)
            found.problems = contents.problems
            if reopen {
                do {
                    if !contents.hasTables { try Ledger.createTables(in: store) }
                    try Ledger.commit(afterCrashCommit, to: store)
                } catch {
                    found.reopenFailure = "commit failed: \(error)"
                    return .opened(found)
                }
            }
        } catch {
            return .refused(error)
        }
        guard reopen else { return .opened(found) }
        do {
            let store = try Store.open(configuration)
            let contents = Ledger.contents(of: store.currentSnapshot)
            let missing = durable.union([afterCrashCommit]).subtracting(contents.commits)
            if !missing.isEmpty { found.reopenFailure = "reopened without commits \(missing.sorted())" }
            found.problems += contents.problems
        } catch {
            found.reopenFailure = "reopen failed: \(error)"
        }
        return .opened(found)
    }
}
