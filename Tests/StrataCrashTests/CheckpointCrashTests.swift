import Foundation
import StrataEngine
import StrataStorage
import Testing

/// Kills a committing child process in the middle of its checkpoints, again and again (each
/// time after the log rotated, while the pages are half written), and checks that the log stays
/// bounded: a reopened store checkpoints the log such a kill left untrimmed, so the segments do
/// not pile up (one per kill, each as large as the checkpoint threshold) and the restart does
/// not get slower and slower.
@Suite("Crashes in the checkpoint window")
struct CheckpointCrashTests {
    @Test("repeated kills in the checkpoint window leave a bounded log and lose no acknowledged commit")
    func repeatedKillsInCheckpoints() throws {
        let worker = try CrashWorker.locate()
        let directory = try TemporaryDirectory.create()
        defer { directory.remove() }
        let path = directory.path + "/crash.strata"
        let threshold = 64 << 10
        var acknowledged: Int64 = 0
        for cycle in 0..<6 {
            let acks = try CrashWorker.runUntilCheckpointStalls(worker, path: path, checkpointThreshold: threshold)
            acknowledged = max(acknowledged, acks.max() ?? 0)
            // Measured before anything reopens the store: what the worker's kills left.
            let segments = try CommitLog.segmentPaths(storePath: path)
            let bytes = try segments.reduce(0) { total, segment in
                try total + (FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int ?? 0)
            }
            // The segment the stalled checkpoint meant to trim (about the threshold: the commits
            // that triggered it) and the one after its rotation.
            #expect(segments.count <= 3, "cycle \(cycle): \(segments.count) log segments")
            #expect(bytes <= 3 * threshold, "cycle \(cycle): \(bytes) bytes of log")
        }
        let recovered = try RecoveredState.read(path: path)
        #expect(Set(recovered.counters).count == 1, "torn transaction, counters \(recovered.counters)")
        #expect((recovered.counters.first ?? 0) >= acknowledged, "acknowledged \(acknowledged), recovered \(recovered.counters)")
        #expect(recovered.payloadsValid)
    }
}
