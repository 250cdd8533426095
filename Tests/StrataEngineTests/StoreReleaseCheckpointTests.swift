import Dispatch
import Foundation
import StrataStorage
import StrataSupport
import StrataTestSupport
import Testing
@testable import StrataEngine

/// Instant restarts: a store checkpoints when its last user lets go, and an open that replayed
/// the log checkpoints it, so the next open replays nothing.
@Suite("Release checkpoints", .serialized)
struct StoreReleaseCheckpointTests {
    /// The bytes of every log segment of the closed store at `path`.
    private func logBytes(_ path: String) throws -> UInt64 {
        try CommitLog.segmentPaths(storePath: path).reduce(0) { total, segment in
            total + ((try FileManager.default.attributesOfItem(atPath: segment)[.size] as? UInt64) ?? 0)
        }
    }

    /// The bytes a log holds when it has no record: one segment's header, and with `.full` the
    /// space reserved ahead of commits (zeros).
    private static let emptyLogBound: UInt64 = 64 << 10 + 4 << 10

    @Test("releasing the last user checkpoints the store: the log is empty and a reopen replays nothing",
          arguments: [Durability.full, .normal])
    func releaseCheckpoints(durability: Durability) throws {
        try withTemporaryDirectory(prefix: "strata-release") { directory in
            let path = directory.file("release.strata")
            let configuration = StoreConfiguration(location: .file(path: path), durability: durability)
            try withStore(configuration) { store in
                try insertItems(1...1, into: store)
                try store.checkpoint()
                try insertItems(2...300, into: store)
                #expect(store.statistics.logBytes > 4_096, "the commits should be in the log while the store is open")
            }
            #expect(StoreRegistry.shared.lastReleaseCheckpointError(at: configuration.location) == nil)
            #expect(try CommitLog.segmentPaths(storePath: path).count == 1)
            #expect(try logBytes(path) <= Self.emptyLogBound, "the release left records in the log")
            try withStore(configuration) { store in
                #expect(store.replayedLog.records == 0)
                #expect(store.replayedLog.bytes == 0)
                #expect(itemCount(store) == 300)
            }
        }
    }

    @Test("a pin released on another thread keeps the store open until then, and its release checkpoints")
    func aPinHeldElsewherePreventsTheReleaseCheckpoint() throws {
        try withTemporaryDirectory(prefix: "strata-release-pin") { directory in
            let path = directory.file("pinned.strata")
            let configuration = StoreConfiguration(location: .file(path: path), durability: .normal)
            let pinned = LockedValueBox<PinnedSnapshot?>(nil)
            let holderReady = DispatchSemaphore(value: 0)
            let letGo = DispatchSemaphore(value: 0)
            let holderDone = DispatchSemaphore(value: 0)
            do {
                let store = try Store.open(configuration)
                try insertItems(1...50, into: store)
                // Handed over through the box: a closure that captured it would hold it until the
                // thread ends.
                pinned.withLockedValue { $0 = try? store.pin() }
                Thread.detachNewThread {
                    holderReady.signal()
                    letGo.wait()
                    pinned.withLockedValue { $0 = nil }
                    holderDone.signal()
                }
                #expect(holderReady.wait(timeout: .now() + 10) == .success)
            }
            // The test let go of every reference; the other thread's pin still holds the store.
            #expect(StoreRegistry.shared.existing(configuration.location) != nil, "the pin should keep the store open")
            #expect(try logBytes(path) > 1_000, "the log was checkpointed while a pin held the store")
            letGo.signal()
            #expect(holderDone.wait(timeout: .now() + 10) == .success)
            waitUntilClosed(configuration.location)
            #expect(StoreRegistry.shared.existing(configuration.location) == nil)
            #expect(try logBytes(path) <= Self.emptyLogBound, "the last pin's release did not checkpoint")
            try withStore(configuration) { store in
                #expect(store.replayedLog.records == 0)
                #expect(itemCount(store) == 50)
            }
        }
    }

    @Test("an open that replayed the log checkpoints it before it returns: the next open replays nothing")
    func anOpenThatReplayedLeavesTheNextOpenReplayFree() throws {
        try withTemporaryDirectory(prefix: "strata-replay") { directory in
            let path = directory.file("replay.strata")
            // Neither release checkpoints, so only the replay's own checkpoint can empty the log.
            var configuration = StoreConfiguration(location: .file(path: path), durability: .full)
            configuration.checkpointsOnRelease = false
            try withStore(configuration) { store in try insertItems(1...200, into: store) }
            #expect(try logBytes(path) > 4_096, "with release checkpoints off, the log keeps the commits")
            try withStore(configuration) { store in
                #expect(store.replayedLog.records == 201)  // the table's creation and 200 inserts
                #expect(store.replayedLog.bytes > 4_096)
                // No waiting: the open itself checkpointed.
                #expect(store.statistics.checkpoints == 1)
                #expect(store.statistics.lastCheckpointError == nil)
            }
            try withStore(configuration) { store in
                #expect(store.replayedLog.records == 0, "the replay's checkpoint did not cover the log")
                #expect(itemCount(store) == 200)
            }
        }
    }

    @Test("a read-only open replays without writing, and its release writes nothing")
    func readOnlyOpensWriteNothing() throws {
        try withTemporaryDirectory(prefix: "strata-release-ro") { directory in
            let path = directory.file("readonly.strata")
            var configuration = StoreConfiguration(location: .file(path: path), durability: .normal)
            configuration.checkpointsOnRelease = false
            try withStore(configuration) { store in try insertItems(1...40, into: store) }
            let (pageFile, log) = (try Data(contentsOf: URL(fileURLWithPath: path)), try logBytes(path))
            var readOnly = StoreConfiguration(location: .file(path: path), durability: .normal, readOnly: true)
            readOnly.checkpointsOnRelease = true
            try withStore(readOnly) { store in
                #expect(store.replayedLog.records == 41)
                #expect(itemCount(store) == 40)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == pageFile)
            #expect(try logBytes(path) == log)
        }
    }

    @Test("a fault in the release checkpoint loses nothing: it is recorded, and the next open recovers the log")
    func aFailedReleaseCheckpointLosesNothing() throws {
        try withTemporaryDirectory(prefix: "strata-release-fault") { directory in
            let path = directory.file("fault.strata")
            let configuration = StoreConfiguration(location: .file(path: path), durability: .normal)
            let fragment = directory.name + "/fault.strata"
            let failed = LockedValueBox(0)
            let armed = LockedValueBox(false)
            // Fails every sync of the page file itself (not a log segment) once armed: the
            // release checkpoint's pages never become durable, so its header is never switched.
            StorageFaults.shared.interceptSyncs(matching: fragment) { syncing in
                guard syncing.hasSuffix("/fault.strata"), armed.withLockedValue({ $0 }) else { return false }
                failed.withLockedValue { $0 += 1 }
                return true
            }
            defer { StorageFaults.shared.reset(matching: fragment) }
            try withStore(configuration) { store in
                try insertItems(1...120, into: store)
                armed.withLockedValue { $0 = true }
            }
            armed.withLockedValue { $0 = false }
            #expect(failed.withLockedValue { $0 } > 0, "the release checkpoint did not reach the page file's sync")
            let recorded = StoreRegistry.shared.lastReleaseCheckpointError(at: configuration.location)
            #expect(recorded != nil, "the failed release checkpoint was not recorded")
            #expect(try logBytes(path) > 1_000, "the log was trimmed although the checkpoint failed")
            try withStore(configuration) { store in
                #expect(store.replayedLog.records > 0)
                #expect(itemCount(store) == 120)
            }
            // That open (and its release) checkpointed: the next replays nothing.
            try withStore(configuration) { store in
                #expect(store.replayedLog.records == 0)
                #expect(itemCount(store) == 120)
            }
            #expect(StoreRegistry.shared.lastReleaseCheckpointError(at: configuration.location) == nil)
        }
    }

    @Test("an open of a path whose store is closing waits for the release checkpoint, then opens the files afresh")
    func anOpenWaitsForAClosingStore() throws {
        try withTemporaryDirectory(prefix: "strata-release-wait") { directory in
            let path = directory.file("closing.strata")
            let configuration = StoreConfiguration(location: .file(path: path), durability: .normal)
            let fragment = directory.name + "/closing.strata"
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let armed = LockedValueBox(false)
            // Holds the release checkpoint in the sync of its pages.
            StorageFaults.shared.interceptSyncs(matching: fragment) { syncing in
                guard syncing.hasSuffix("/closing.strata"), armed.withLockedValue({ $0 }) else { return false }
                armed.withLockedValue { $0 = false }
                entered.signal()
                release.wait()
                return false
            }
            defer { StorageFaults.shared.reset(matching: fragment) }
            let closer = DispatchSemaphore(value: 0)
            let handOver = DispatchSemaphore(value: 0)
            let box = LockedValueBox<Store?>(nil)
            // The last reference goes on another thread, whose deinit then blocks in the checkpoint.
            Thread.detachNewThread {
                handOver.wait()
                let last = box.withLockedValue { value -> Store? in
                    defer { value = nil }
                    return value
                }
                withExtendedLifetime(last) {}
                closer.signal()
            }
            do {
                let store = try Store.open(configuration)
                try insertItems(1...30, into: store)
                armed.withLockedValue { $0 = true }
                box.withLockedValue { $0 = store }
            }
            handOver.signal()
            #expect(entered.wait(timeout: .now() + 10) == .success, "the release checkpoint did not start")
            let opened = DispatchSemaphore(value: 0)
            let count = LockedValueBox<Int?>(nil)
            Thread.detachNewThread {
                let store = try? Store.open(configuration)
                count.withLockedValue { $0 = store.map(itemCount) }
                opened.signal()
            }
            // Absence over a window: an open that did not wait would have returned at once.
            #expect(opened.wait(timeout: .now() + 0.3) == .timedOut, "the open did not wait for the closing store")
            release.signal()
            #expect(closer.wait(timeout: .now() + 10) == .success)
            #expect(opened.wait(timeout: .now() + 10) == .success)
            #expect(count.withLockedValue { $0 } == 30)
            waitUntilClosed(configuration.location)
        }
    }
}
