import Foundation
import StrataEngine
import Testing

/// Instant restarts after a `kill -9`: the open that replays the log a killed writer left
/// checkpoints what it replayed, so the open after it replays nothing, even when the first one's
/// process never releases the store (release checkpoints are turned off here to show it).
@Suite("Restart after kill -9")
struct RestartAfterKillTests {
    @Test("the open after a kill -9 replays the log once: the next open replays nothing and loses nothing")
    func theOpenAfterAKillLeavesTheNextOpenReplayFree() throws {
        let worker = try CrashWorker.locate()
        let directory = try TemporaryDirectory.create()
        defer { directory.remove() }
        let path = directory.path + "/restart.strata"
        var configuration = StoreConfiguration.file(path)
        configuration.checkpointsOnRelease = false

        // The worker compacts every 97 commits, which empties the log: a kill right after one
        // leaves nothing to replay, so try again (a kill lands there rarely).
        var acknowledged: Int64 = 0
        var replayed = 0
        for _ in 0..<5 where replayed == 0 {
            let acks = try CrashWorker.run(worker, path: path, durability: "full", checkpointThreshold: 64 << 20,
                                           killAfterMicroseconds: 150_000)
            acknowledged = max(acknowledged, acks.max() ?? 0)
            let store = try Store.open(configuration)
            replayed = store.replayedLog.records
            if replayed > 0 {
                // The open checkpointed what it replayed before it returned.
                #expect(store.statistics.checkpoints == 1, "the open did not checkpoint what it replayed")
                #expect(store.statistics.lastCheckpointError == nil)
            }
        }
        #expect(replayed > 0, "no kill left a log to replay")
        let reopened = try Store.open(configuration)
        #expect(reopened.replayedLog.records == 0, "the second open replayed the log again")
        _ = consume reopened
        let recovered = try RecoveredState.read(path: path)
        #expect(Set(recovered.counters).count == 1, "torn transaction, counters \(recovered.counters)")
        #expect((recovered.counters.first ?? 0) >= acknowledged,
                "acknowledged \(acknowledged), recovered \(recovered.counters)")
        #expect(recovered.payloadsValid)
    }
}
