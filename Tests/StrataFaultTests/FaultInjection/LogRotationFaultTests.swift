#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StrataEngine
@testable import StrataStorage
import StrataSupport
import Testing

/// A checkpoint's log rotation that cannot create its new segment (no descriptor left, no space
/// for a new file) wrote nothing: the checkpoint fails with `logRotationFailed`, the store is not
/// poisoned, commits go on in the current segment, and a later checkpoint succeeds. A failure
/// after the new segment was opened (its header's write or sync) still poisons, as every failed
/// write or sync of the log does. And a log that checkpoints interrupted after their rotation
/// left untrimmed is checkpointed when the store is reopened, without a new segment when the
/// current one holds no record.
@Suite("Log rotation faults")
struct LogRotationFaultTests {
    @Test("a new log segment that cannot be opened fails the checkpoint with logRotationFailed and leaves the store writable; the next checkpoint succeeds",
          arguments: [EMFILE, ENFILE, ENOSPC])
    func segmentOpenFails(errno code: Int32) throws {
        try withTemporaryDirectory(prefix: "strata-rotation") { directory in
            let segments = directory.name + "/store.strata.log."
            defer { StorageFaults.shared.removeRules(matching: segments) }
            let configuration = StoreConfiguration.file(directory.file("store.strata"), durability: .full)
            try withReleasedStore(configuration) { store in
                try Ledger.createTables(in: store)
                for id: Int64 in 1...5 { try Ledger.commit(id, to: store) }
                let before = try CommitLog.segmentPaths(storePath: directory.file("store.strata"))
                StorageFaults.shared.inject(.fail(errno: code), on: .open, matching: segments)
                let error = #expect(throws: StrataError.self) { try store.checkpoint() }
                #expect(error?.code == .logRotationFailed, "\(String(describing: error))")
                #expect(error?.errno == code)
                #expect(try CommitLog.segmentPaths(storePath: directory.file("store.strata")) == before)
                for id: Int64 in 6...8 { try Ledger.commit(id, to: store) }
                try store.checkpoint()
                try Ledger.commit(9, to: store)
            }
            try withReleasedStore(configuration) { store in
                let contents = Ledger.contents(of: store.currentSnapshot)
                #expect(contents.commits == Set(0...9))
                #expect(contents.problems.isEmpty)
            }
        }
    }

    @Test("a background checkpoint whose new log segment could not be opened is started again by a later commit, and succeeds")
    func backgroundCheckpointIsRetried() throws {
        try withTemporaryDirectory(prefix: "strata-rotation") { directory in
            let segments = directory.name + "/store.strata.log."
            defer { StorageFaults.shared.removeRules(matching: segments) }
            var configuration = StoreConfiguration.file(directory.file("store.strata"), durability: .full)
            configuration.checkpointThreshold = 4_096
            try withReleasedStore(configuration) { store in
                try Ledger.createTables(in: store)
                StorageFaults.shared.inject(.fail(errno: EMFILE), on: .open, matching: segments)
                // Commits pass the threshold; the first background checkpoint fails to rotate, a
                // commit at least a second later starts another, which succeeds.
                var id: Int64 = 0
                let checkpointed = waitUntil(timeout: 60) {
                    id += 1
                    try? Ledger.commit(id, to: store)
                    return store.statistics.checkpoints > 0
                }
                #expect(checkpointed, "\(String(describing: store.statistics.lastCheckpointError))")
                #expect(store.statistics.lastCheckpointError?.contains("logRotationFailed") == true,
                        "\(String(describing: store.statistics.lastCheckpointError))")
                #expect(!StorageFaults.shared.isArmed(matching: segments))
                #expect(Ledger.contents(of: store.currentSnapshot).commits == Set(0...id))
            }
        }
    }

    @Test("background checkpoints that keep failing after their rotation are retried after a growing delay, not at every commit: the log does not gain a segment per commit")
    func failingCheckpointsBackOff() throws {
        try withTemporaryDirectory(prefix: "strata-rotation") { directory in
            let pageFile = directory.name + "/store.strata$"
            defer { StorageFaults.shared.removeRules(matching: pageFile) }
            var configuration = StoreConfiguration.file(directory.file("store.strata"), durability: .full)
            configuration.checkpointThreshold = 4_096
            try withReleasedStore(configuration) { store in
                try Ledger.createTables(in: store)
                StorageFaults.shared.inject(.fail(errno: EIO), on: .write, matching: pageFile, count: 1_000_000)
                for id: Int64 in 1...200 { try Ledger.commit(id, to: store) }
                let statistics = store.statistics
                #expect(statistics.checkpoints == 0)
                #expect(statistics.lastCheckpointError != nil)
                // One segment per failed attempt (each rotated first): a few, after 1 s, 2 s, 4 s…
                #expect(statistics.logSegments < 20, "\(statistics.logSegments) log segments after 200 commits")
                StorageFaults.shared.removeRules(matching: pageFile)
                try store.checkpoint()
                #expect(store.statistics.logSegments == 1)
            }
        }
    }

    @Test("a failed sync of the new segment, after its file was opened, still poisons the store")
    func segmentSyncFails() throws {
        try withTemporaryDirectory(prefix: "strata-rotation") { directory in
            let newSegment = directory.name + "/store.strata.log.0000000000000002"
            defer { StorageFaults.shared.removeRules(matching: newSegment) }
            let configuration = StoreConfiguration.file(directory.file("store.strata"), durability: .full)
            try withReleasedStore(configuration) { store in
                try Ledger.createTables(in: store)
                for id: Int64 in 1...3 { try Ledger.commit(id, to: store) }
                #expect(store.statistics.logSegments == 1)
                StorageFaults.shared.inject(.fail(errno: EIO), on: .sync, matching: newSegment)
                let error = #expect(throws: StrataError.self) { try store.checkpoint() }
                #expect(error?.code == .fileAccess)
                let later = #expect(throws: StrataError.self) { try Ledger.commit(4, to: store) }
                #expect(later?.code == .poisoned)
            }
            try withReleasedStore(configuration) { store in
                #expect(Ledger.contents(of: store.currentSnapshot).commits == Set(0...3))
            }
        }
    }

    @Test("a log left untrimmed by checkpoints that stopped after their rotation is checkpointed at the next open; a checkpoint adds no segment while the current one is empty")
    func untrimmedLogIsCheckpointedAtOpen() throws {
        try withTemporaryDirectory(prefix: "strata-rotation") { directory in
            let pageFile = directory.name + "/store.strata$"
            defer { StorageFaults.shared.removeRules(matching: pageFile) }
            let path = directory.file("store.strata")
            // No release checkpoint: the segments must outlive the close, as after a crash.
            var crashing = StoreConfiguration.file(path, durability: .full)
            crashing.checkpointsOnRelease = false
            try withReleasedStore(crashing) { store in
                try Ledger.createTables(in: store)
                // Each checkpoint rotates the log, then fails writing its pages (as a crash in the
                // checkpoint window would stop it): the segments it meant to trim stay.
                for round: Int64 in 0..<3 {
                    for id in round * 10 + 1...round * 10 + 10 { try Ledger.commit(id, to: store) }
                    StorageFaults.shared.inject(.fail(errno: EIO), on: .write, matching: pageFile, count: 1_000)
                    #expect(throws: StrataError.self) { try store.checkpoint() }
                    StorageFaults.shared.removeRules(matching: pageFile)
                }
                #expect(store.statistics.logSegments == 4)
            }
            var configuration = StoreConfiguration.file(path, durability: .full)
            configuration.checkpointThreshold = 1_024
            try withReleasedStore(configuration) { store in
                #expect(store.statistics.checkpoints == 1, "\(String(describing: store.statistics.lastCheckpointError))")
                #expect(try CommitLog.segmentPaths(storePath: path).count == 1)
                let sequence = try CommitLog.segmentPaths(storePath: path)
                try store.checkpoint()
                #expect(try CommitLog.segmentPaths(storePath: path) == sequence, "an empty segment was rotated")
                #expect(Ledger.contents(of: store.currentSnapshot).commits == Set(0...30))
            }
        }
    }
}
