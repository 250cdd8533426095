import Dispatch
import Foundation
import StrataEngine
import StrataEventLoop
@testable import StrataNotify
import StrataSupport
import StrataTestSupport
import Testing

/// A notifier that records the versions the worker prepares it for.
private final class RecordingNotifier: AnyNotifier, @unchecked Sendable {
    // Safety: the recorded versions are in a locked box; the rest is constant.
    let prepared = LockedValueBox<[UInt64]>([])

    func prepare(to pin: PinnedSnapshot, store: Store) { prepared.withLockedValue { $0.append(pin.version) } }
    var pendingVersion: UInt64? { nil }
    var pendingPin: PinnedSnapshot? { nil }
    var deliveredVersion: UInt64? { nil }
    func skip(to pin: PinnedSnapshot, store: Store) {}
    var hasDeliveredInitial: Bool { true }
    func prepareInitial(at pin: PinnedSnapshot, store: Store) {}

    /// Waits (at most `timeout`) until a version at least `version` was prepared.
    func waitForVersion(_ version: UInt64, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if prepared.withLockedValue({ $0.contains { $0 >= version } }) { return true }
            usleep(1_000)
        }
        return false
    }
}

@Suite("Notifier hub")
struct NotifierHubTests {
    @Test("the worker prepares a version only after the publish observers registered before the hub have run for it")
    func preparesAfterEarlierPublishObservers() throws {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
        // Timeline: the clock (registered first) blocks on the commit of version 3 until `release`;
        // meanwhile a new registration wakes the worker, which must not prepare version 3 yet.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let clockSaw = LockedValueBox<UInt64>(0)
        let blockedVersion = store.currentSnapshot.version + 1
        let clock = store.addPublishObserver { version in
            if version == blockedVersion {
                entered.signal()
                release.wait()
            }
            clockSaw.withLockedValue { $0 = version }
        }
        defer { store.removePublishObserver(clock) }

        let hub = NotifierHub.hub(for: store)
        let target = NotificationTarget(scheduler: DispatchQueueScheduler(queue: DispatchQueue(label: "hub-test")))
        let first = RecordingNotifier()
        hub.register(first, target: target)
        defer { hub.unregister(first) }
        #expect(first.waitForVersion(blockedVersion - 1))

        let writer = Thread { _ = try? store.write { _ = try $0.insertObject(into: table, values: [.int(1)]) } }
        writer.start()
        entered.wait()
        // Version 3 is published and the clock is inside its observer: wake the worker.
        let second = RecordingNotifier()
        hub.register(second, target: target)
        defer { hub.unregister(second) }
        // Absence can only be checked over a window: a worker that ran ahead would have prepared
        // version 3 within microseconds.
        #expect(!first.waitForVersion(blockedVersion, timeout: 0.3))
        #expect(!second.waitForVersion(blockedVersion, timeout: 0.01))

        release.signal()
        #expect(first.waitForVersion(blockedVersion) && second.waitForVersion(blockedVersion))
        #expect(clockSaw.withLockedValue { $0 } == blockedVersion)
    }

    @Test("every commit reaches the worker: bursts from several threads, and commits right after the worker stopped and started again, are all prepared")
    func everyCommitReachesTheWorker() throws {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
        let hub = NotifierHub.hub(for: store)
        let target = NotificationTarget(scheduler: DispatchQueueScheduler(queue: DispatchQueue(label: "hub-test")))
        let failures = FailureLog()
        for round in 0..<20 {
            // Nothing is registered between rounds, so each round starts a new worker while the
            // last one may still be on its way out.
            let notifier = RecordingNotifier()
            hub.register(notifier, target: target)
            let finished = runOnThreads(3) { _ in
                for _ in 0..<10 {
                    do {
                        _ = try store.write { _ = try $0.insertObject(into: table, values: [.int(1)]) }
                    } catch {
                        failures.record("\(error)")
                    }
                }
            }
            #expect(finished)
            let newest = store.currentSnapshot.version
            let reached = notifier.waitForVersion(newest, timeout: 30)
            #expect(reached, "round \(round): version \(newest) was never prepared")
            hub.unregister(notifier)
            if !reached { break }
        }
        #expect(failures.all == [])
    }
}

@Suite("Notifier hub: letting go of the store")
struct NotifierHubReleaseTests {
    /// A new in-memory store with one table of one integer column.
    private static func storeWithTable() throws -> (Store, TableKey) {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
        return (store, table)
    }

    @Test("once the last registration goes, the hub no longer holds the store (no waiting for the worker to wake)")
    func lastUnregisterReleasesTheStore() throws {
        for round in 0..<20 {
            weak var released: Store?
            try {
                let (store, table) = try Self.storeWithTable()
                released = store
                let hub = NotifierHub.hub(for: store)
                let target = NotificationTarget(scheduler: DispatchQueueScheduler(queue: DispatchQueue(label: "hub-release")))
                let notifier = RecordingNotifier()
                hub.register(notifier, target: target)
                _ = try store.write { try $0.insertObject(into: table, values: [.int(1)]) }
                #expect(notifier.waitForVersion(store.currentSnapshot.version))
                hub.unregister(notifier)
            }()
            // The worker pinned the version it prepared; the hub must have dropped that pin (and
            // the worker any reference of its pass) by the time `unregister` returned.
            #expect(released == nil, "round \(round): the store outlived its last registration")
        }
    }

    @Test("releasing the last target lets go of the store too")
    func lastTargetReleaseReleasesTheStore() throws {
        weak var released: Store?
        try {
            let (store, table) = try Self.storeWithTable()
            released = store
            let hub = NotifierHub.hub(for: store)
            let delivered = DispatchSemaphore(value: 0)
            let queue = DispatchQueue(label: "hub-release-target")
            let target = NotificationTarget(scheduler: DispatchQueueScheduler(queue: queue))
            target.setHandler { delivered.signal() }
            hub.retainTarget(target)
            _ = try store.write { try $0.insertObject(into: table, values: [.int(1)]) }
            #expect(delivered.wait(timeout: .now() + 10) == .success)
            hub.releaseTarget(target)
            queue.sync {}
        }()
        #expect(released == nil, "the store outlived its last target")
    }
}
