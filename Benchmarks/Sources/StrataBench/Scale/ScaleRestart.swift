@_spi(Benchmarks) import StrataEngine
import Foundation
@_spi(Benchmarks) import Strata

/// The restart phases of the scale series: how long an open takes, and what it holds,
/// after the writer released its last Realm, and after a writer was killed (`SIGKILL`) with its
/// log just under the checkpoint threshold; then the open after that one. Each runs in a child
/// process of its own, as the other phases do.
///
/// `STRATA_SCALE_RESTART_CHECKPOINTS=0` (read by the parent and its children alike) opens every
/// Realm with the release and replay checkpoints off: restarts as they were before them.
enum ScaleRestart {
    /// The checkpoint threshold of every Strata phase: `STRATA_SCALE_CHECKPOINT_LOG_BYTES`, or the
    /// default (64 MiB), to weigh a lower threshold (commit throughput against replay time).
    static let checkpointLogBytes = ProcessInfo.processInfo.environment["STRATA_SCALE_CHECKPOINT_LOG_BYTES"]
        .flatMap(UInt64.init) ?? Realm.Configuration().checkpointLogBytes
    /// Whether the release and replay checkpoints are on (the default).
    static let restartCheckpoints = ProcessInfo.processInfo.environment["STRATA_SCALE_RESTART_CHECKPOINTS"] != "0"
    /// The cache of the opens after a restart: 16 MiB, so that memory after a replay shows what
    /// the cache does not bound.
    static let restartCacheSize = 16 << 20
    /// The log a writer leaves: this much under the checkpoint threshold.
    static let logMargin: UInt64 = 4 << 20
    /// Rows per write transaction of a writer.
    static let batch: Int64 = 1_000

    /// The Realms the open phase keeps until the process exits, so that its store is not released
    /// (a release would checkpoint it): the next open then shows what the replay's own checkpoint did.
    nonisolated(unsafe) private static var kept: [Realm] = []

    static func configuration(_ directory: String, cacheSize: Int = Realm.Configuration().cacheSize)
        -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory + "/scale.strata"),
                                                objectTypes: [ScalePerson.self], durability: .normal)
        configuration.cacheSize = cacheSize
        configuration.checkpointLogBytes = checkpointLogBytes
        configuration.restartCheckpoints = restartCheckpoints
        return configuration
    }

    /// Inserts new rows, `batch` per transaction, until the log since the last checkpoint is just
    /// under the threshold (a checkpoint the writes start empties it, and the writes go on).
    /// Returns the log's bytes.
    private static func fillLog(_ realm: Realm, _ probe: StoreProbe, threshold: UInt64) throws -> UInt64 {
        var next = Int64(realm.objects(ScalePerson.self).count) + 1
        while probe.logBytesSinceCheckpoint < threshold - logMargin {
            try realm.write {
                for id in next..<(next + batch) { realm.add(ScalePerson(ScaleRow(id: id))) }
            }
            next += batch
        }
        return probe.logBytesSinceCheckpoint
    }

    /// A writer that fills the log, then releases its last Realm (timed: the release checkpoint
    /// runs then) and exits.
    static func release(_ directory: String) throws -> [(String, Double)] {
        let configuration = configuration(directory)
        var logBytes: UInt64 = 0
        var start: UInt64 = 0
        try {
            let realm = try Realm(configuration: configuration)
            let probe = try StoreProbe(path: configuration.fileURL!.path, durability: .normal)
            logBytes = try fillLog(realm, probe, threshold: configuration.checkpointLogBytes)
            start = now()
        }()
        return [("log_bytes", Double(logBytes)), ("release_s", seconds(since: start))]
    }

    /// A writer that fills the log, then kills itself (`SIGKILL`): its figures are printed first.
    static func kill(_ directory: String) throws -> Never {
        let configuration = configuration(directory)
        let realm = try Realm(configuration: configuration)
        let probe = try StoreProbe(path: configuration.fileURL!.path, durability: .normal)
        let logBytes = try fillLog(realm, probe, threshold: configuration.checkpointLogBytes)
        // Unbuffered, so the line is out before the kill.
        FileHandle.standardOutput.write(Data("log_bytes=\(Double(logBytes))\n".utf8))
        Foundation.kill(getpid(), SIGKILL)
        while true { pause() }
    }

    /// A cold open with a 16 MiB cache: its time, what it replayed, its memory then, and (when it
    /// started a checkpoint of the replay) its memory once that checkpoint ended. Exits without
    /// releasing the Realm.
    static func open(_ directory: String) throws -> [(String, Double)] {
        try evictFromPageCache(directory: directory)
        let configuration = configuration(directory, cacheSize: restartCacheSize)
        let start = now()
        let realm = try Realm(configuration: configuration)
        try expect(realm.object(ofType: ScalePerson.self, forPrimaryKey: Int64(1))?.name, "person-1",
                   "scale lookup of id 1")
        var figures: [(String, Double)] = [("open_ms", Double(now() - start) / 1e6)]
        figures += ScaleChild.memory("open")
        let probe = try StoreProbe(path: configuration.fileURL!.path, durability: .normal)
        figures += [("replayed_bytes", Double(probe.replayedLogBytes)),
                    ("replayed_records", Double(probe.replayedRecords))]
        if probe.replayedRecords > 0 && restartCheckpoints {
            let waited = now()
            while probe.checkpoints == 0 { usleep(10_000) }
            figures += [("replay_checkpoint_s", seconds(since: waited))] + ScaleChild.memory("checkpointed")
        }
        kept.append(realm)
        return figures
    }
}
