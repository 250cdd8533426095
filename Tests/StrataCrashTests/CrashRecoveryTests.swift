import Foundation
import StrataEngine
import Testing

/// Kills a committing child process at random moments (also while it checkpoints and compacts)
/// and checks, after each kill, that the store reopens with every acknowledged commit and no
/// partially visible transaction.
///
/// `STRATA_CRASH_CYCLES` sets the number of cycles (default 200, the CI figure; the long mode
/// is e.g. `STRATA_CRASH_CYCLES=2000`). `STRATA_SEED` replays a run.
@Suite("Crash recovery")
struct CrashRecoveryTests {
    @Test("every acknowledged commit survives SIGKILL and no transaction is torn")
    func killAndRecover() throws {
        let cycles = ProcessInfo.processInfo.environment["STRATA_CRASH_CYCLES"].flatMap(Int.init) ?? 200
        let seed = ProcessInfo.processInfo.environment["STRATA_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("crash test: \(cycles) cycles, seed \(seed) (STRATA_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        let worker = try CrashWorker.locate()
        let directory = try TemporaryDirectory.create()
        defer { directory.remove() }
        let path = directory.path + "/crash.strata"

        var acknowledged: Int64 = 0
        var totalAcks = 0
        var recoveredBeyondAck = 0
        for cycle in 0..<cycles {
            let durability = cycle % 2 == 0 ? "full" : "normal"
            let delay = UInt32(random.next() % 40_000)
            let acks = try CrashWorker.run(worker, path: path, durability: durability,
                                           checkpointThreshold: 64 << 10, killAfterMicroseconds: delay)
            totalAcks += acks.count
            acknowledged = max(acknowledged, acks.max() ?? 0)

            let recovered = try RecoveredState.read(path: path)
            #expect(recovered.counters.count == 3, "cycle \(cycle): counters missing")
            #expect(Set(recovered.counters).count == 1, "cycle \(cycle): torn transaction, counters \(recovered.counters)")
            let counter = recovered.counters.first ?? 0
            #expect(counter >= acknowledged, "cycle \(cycle): acknowledged \(acknowledged), recovered \(counter)")
            let expectedIDs = counter == 0 ? [] : Array(max(1, counter - CrashWorker.window + 1)...counter)
            #expect(recovered.entryIDs == expectedIDs,
                    "cycle \(cycle): entries do not match counter \(counter)")
            #expect(recovered.payloadsValid, "cycle \(cycle): an entry's payload is damaged")
            if counter > acknowledged { recoveredBeyondAck += 1 }
            acknowledged = counter
        }
        print("crash test: \(cycles) cycles, \(totalAcks) acknowledged commits, final version counter \(acknowledged), "
              + "lost: 0, cycles where an unacknowledged in-flight commit was also present: \(recoveredBeyondAck)")
    }
}

/// What the parent reads back from the store after a kill.
struct RecoveredState {
    var counters: [Int64]
    var entryIDs: [Int64]
    var payloadsValid: Bool

    static func read(path: String) throws -> RecoveredState {
        let store = try Store.open(.file(path))
        let snapshot = store.currentSnapshot
        guard let counterTable = snapshot.table(named: "Counter"), let entryTable = snapshot.table(named: "Entry") else {
            return RecoveredState(counters: [0, 0, 0], entryIDs: [], payloadsValid: true)
        }
        var counters: [Int64] = []
        counterTable.forEachObject { _, row in if case .int(let value) = row[1] { counters.append(value) } }
        var ids: [Int64] = []
        var valid = true
        entryTable.forEachObject { _, row in
            guard case .int(let id) = row[0], case .string(let payload) = row[1] else {
                valid = false
                return
            }
            ids.append(id)
            valid = valid && payload == CrashWorker.payload(id)
        }
        return RecoveredState(counters: counters, entryIDs: ids.sorted(), payloadsValid: valid)
    }
}
