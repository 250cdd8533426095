import Foundation
import StrataEngine
import StrataSupport
import Testing

/// Power-loss simulation: four writer threads commit ledger transactions (see ``Ledger``) while
/// every file operation is traced; crash states are then built from the trace (see
/// ``CrashFileSystem`` for what survives a power cut) and each is opened with the real store.
///
/// Pass: every state opens; every commit acknowledged as durable under the durability is there
/// (`.full`: every commit whose `write` returned before the crash; `.normal`: every commit whose
/// `write` returned before a commit-log sync that finished before the crash); no transaction is
/// partial. Every eighth state also takes a new commit and is reopened.
///
/// `STRATA_POWERLOSS_STATES` sets the number of states over both durabilities (default 1,000,
/// the CI figure; the long mode is 10,000), one trace per 500 states. `STRATA_SEED` fixes the
/// crash points and choices; a failing run keeps its trace and prints the line that replays a
/// state (`STRATA_POWERLOSS_TRACE`, `STRATA_SEED`, `STRATA_POWERLOSS_STATE`), since the threads'
/// interleaving itself cannot be replayed from a seed.
@Suite("Power loss", .serialized)
struct PowerLossTests {
    static let statesPerTrace = 500

    @Test("every crash state opens with every durable acknowledged commit and no partial transaction",
          arguments: [Durability.full, .normal])
    func crashStatesOpen(durability: Durability) throws {
        let environment = ProcessInfo.processInfo.environment
        let label = durability == .full ? "full" : "normal"
        let seed = SeededRandom.seedFromEnvironment()
        var report = PowerLossReport(label: label, seed: seed)

        if let tracePath = environment["STRATA_POWERLOSS_TRACE"] {
            guard tracePath.hasSuffix("-\(label).trace") else { return }
            let trace = try IOTraceFile.load(from: tracePath)
            let only = environment["STRATA_POWERLOSS_STATE"].flatMap(Int.init)
            let states = only.map { [$0] } ?? Array(0..<Self.statesPerTrace)
            try Self.runStates(states, of: trace, durability: durability, seed: seed, tracePath: tracePath,
                               report: &report)
        } else {
            let total = environment["STRATA_POWERLOSS_STATES"].flatMap(Int.init) ?? 1000
            let states = max(1, total / 2)
            var first = 0
            while first < states {
                let range = first..<min(states, first + Self.statesPerTrace)
                let started = monotonicSeconds()
                let trace = try PowerLossWorkload.record(durability: durability)
                report.workloadSeconds += monotonicSeconds() - started
                let tracePath = "/tmp/strata-powerloss-\(seed)-\(first / Self.statesPerTrace)-\(label).trace"
                let failuresBefore = report.failures.count
                try Self.runStates(Array(range), of: trace, durability: durability, seed: seed, tracePath: tracePath,
                                   report: &report)
                if report.failures.count > failuresBefore { try IOTraceFile.save(trace, to: tracePath) }
                first = range.upperBound
            }
        }
        print(report.summary)
        for failure in report.failures.prefix(5) { print("power loss failure: \(failure)") }
        #expect(report.failures.isEmpty, "\(report.summary); first: \(report.failures.first ?? "")")
    }

    @Test("the workload's large commit is spooled to a scratch file, so the traces hold streamed log records")
    func largeCommitIsSpooled() throws {
        try withTemporaryDirectory(prefix: "strata-powerloss") { directory in
            var configuration = StoreConfiguration.file(directory.file("store.strata"), durability: .normal)
            configuration.instructionSpoolBytes = Ledger.largeCommitSpoolBytes
            let store = try Store.open(configuration)
            try Ledger.createTables(in: store)
            let tx = try store.beginWrite()
            try Ledger.write(20_999, in: tx)
            #expect(Ledger.isLarge(20_999))
            #expect(tx.spooledBytes >= UInt64(Ledger.largeCommitSpoolBytes))
            try tx.commit()
            #expect(Ledger.contents(of: store.currentSnapshot).commits == [Ledger.schemaCommit, 20_999])
            #expect(Ledger.contents(of: store.currentSnapshot).problems.isEmpty)
        }
    }

    @Test("a .full trace reserves log space ahead of the appends and cuts it off when a rotation seals a segment")
    func fullTraceReservesLogSpace() throws {
        let trace = try PowerLossWorkload.record(durability: .full)
        var reserved = 0, released = 0
        var sizes: [String: UInt64] = [:]
        for event in trace {
            switch event {
            case .opened(let name, _): sizes[name] = sizes[name] ?? 0
            case .wrote(let name, let offset, let bytes): sizes[name] = max(sizes[name] ?? 0, offset + UInt64(bytes.count))
            case .truncated(let name, let length) where name.contains(".log."):
                if length > sizes[name] ?? 0 { reserved += 1 } else { released += 1 }
                sizes[name] = length
            default: break
            }
        }
        #expect(reserved > 1, "space reserved ahead of the appends")
        #expect(released > 0, "reserved space cut off before a segment is sealed")
    }

    @Test("the check catches lost commits: a .normal trace judged by the .full rule loses acknowledged commits")
    func checkCatchesLostCommits() throws {
        let seed = SeededRandom.seedFromEnvironment()
        var report = PowerLossReport(label: "normal judged as full", seed: seed)
        let trace = try PowerLossWorkload.record(durability: .normal)
        try Self.runStates(Array(0..<100), of: trace, durability: .normal, judgedAs: .full, seed: seed,
                           tracePath: "(not saved)", report: &report)
        print(report.summary)
        #expect(report.lost > 0, "a store that acknowledges before syncing went unnoticed: \(report.summary)")
    }

    /// Builds and checks the states `indices` of `trace` (state `i` uses the generator seeded
    /// with `seed` and `i`, whatever the other states are), expecting the commits that
    /// `judgedAs` (by default the store's own durability) makes durable.
    private static func runStates(
        _ indices: [Int], of trace: [TraceEvent], durability: Durability, judgedAs: Durability? = nil,
        seed: UInt64, tracePath: String, report: inout PowerLossReport
    ) throws {
        report.traces += 1
        report.events += trace.count
        let durableAt = DurabilityTimeline(trace: trace, durability: judgedAs ?? durability)
        let started = monotonicSeconds()
        defer { report.stateSeconds += monotonicSeconds() - started }
        var plans = indices.map { index -> (index: Int, crashPoint: Int, random: SeededRandom) in
            var random = SeededRandom(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
            return (index, Int(random.next() % UInt64(trace.count + 1)), random)
        }
        plans.sort { ($0.crashPoint, $0.index) < ($1.crashPoint, $1.index) }
        var model = CrashFileSystem()
        for var plan in plans {
            while model.position < plan.crashPoint { model.apply(trace[model.position]) }
            let state = model.crashState(using: &plan.random)
            let replay = "STRATA_POWERLOSS_TRACE=\(tracePath) STRATA_SEED=\(seed) STRATA_POWERLOSS_STATE=\(plan.index)"
            let outcome = try CrashStateCheck.run(
                files: state.files, durability: durability, durable: durableAt.commits(before: plan.crashPoint),
                reopen: plan.index % 8 == 0)
            report.record(outcome, state: plan.index, crashPoint: plan.crashPoint, of: trace.count,
                          description: state.description, replay: replay)
        }
    }
}

/// Which acknowledged commits a crash after a given event must keep.
///
/// `.normal`: a commit counts as durable once any commit-log sync that started after its
/// acknowledgement has finished. That sync may be of a newer segment (a rotation), which is
/// sound because the store syncs the current segment before it rotates, under the write lock
/// that orders appends; a log that rotated without that sync would need a per-segment rule.
struct DurabilityTimeline {
    /// For each acknowledged commit, the number of events after which it is durable.
    private var durableAfter: [(events: Int, id: Int64)] = []

    init(trace: [TraceEvent], durability: Durability) {
        // The commit-log syncs that finished, as (index started, index finished).
        var started: [String: [Int]] = [:]
        var logSyncs: [(started: Int, finished: Int)] = []
        for (index, event) in trace.enumerated() {
            switch event {
            case .syncStarted(let name) where name.contains(".log."): started[name, default: []].append(index)
            case .syncFinished(let name) where name.contains(".log."):
                if let first = started[name]?.first {
                    started[name]!.removeFirst()
                    logSyncs.append((first, index))
                }
            default: break
            }
        }
        for (index, event) in trace.enumerated() {
            guard case .acknowledged(let id) = event else { continue }
            switch durability {
            case .full:
                durableAfter.append((index + 1, id))
            case .normal:
                // Durable once a log sync that started after the acknowledgement has finished.
                if let finished = logSyncs.filter({ $0.started > index }).map(\.finished).min() {
                    durableAfter.append((finished + 1, id))
                }
            }
        }
    }

    /// The commits a crash after the first `events` events must keep.
    func commits(before events: Int) -> Set<Int64> {
        Set(durableAfter.filter { $0.events <= events }.map(\.id))
    }
}

/// Tallies the states of one durability.
struct PowerLossReport {
    let label: String
    let seed: UInt64
    var traces = 0
    var events = 0
    var states = 0
    var opened = 0
    var refused = 0
    var lost = 0
    var partial = 0
    var reopenFailures = 0
    var refusalsByMessage: [String: Int] = [:]
    var workloadSeconds = 0.0
    var stateSeconds = 0.0
    var failures: [String] = []

    mutating func record(
        _ outcome: CrashStateCheck.Outcome, state: Int, crashPoint: Int, of events: Int, description: String,
        replay: String
    ) {
        states += 1
        let problems: [String]
        switch outcome {
        case .refused(let error):
            refused += 1
            refusalsByMessage[Self.kind(of: error), default: 0] += 1
            problems = ["open failed: \(error)"]
        case .opened(let found):
            opened += 1
            if !found.lost.isEmpty { lost += 1 }
            if !found.problems.isEmpty { partial += 1 }
            if found.reopenFailure != nil { reopenFailures += 1 }
            problems = (found.lost.isEmpty ? [] : ["acknowledged durable commits missing: \(found.lost.sorted())"])
                + found.problems + (found.reopenFailure.map { ["after a new commit: \($0)"] } ?? [])
        }
        guard !problems.isEmpty else { return }
        failures.append("[\(label)] state \(state) (crash after event \(crashPoint) of \(events)): "
                        + problems.joined(separator: "; ") + " | state: \(description) | replay: \(replay)")
    }

    /// The message of an open error without its offsets and paths, to group refusals.
    private static func kind(of error: any Error) -> String {
        guard let error = error as? StrataError else { return "\(error)" }
        return "\(error.code): " + error.message.prefix { !$0.isNumber }
    }

    var summary: String {
        "power loss (.\(label), seed \(seed)): \(states) states from \(traces) trace(s) of \(events) events; "
            + "opened \(opened), refused to open \(refused) \(refusalsByMessage.sorted { $0.key < $1.key }), "
            + "lost acknowledged commits in \(lost), partial transactions in \(partial), "
            + "failed after a new commit and reopen in \(reopenFailures) "
            + "(workload \(Int(workloadSeconds * 1000)) ms, states \(Int(stateSeconds * 1000)) ms)"
    }
}
