#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Testing
@testable import StrataStorage
import StrataSupport

/// A sync closure that does nothing but count its calls and records the calls' order.
private final class SyncRecorder: Sendable {
    private struct State {
        var syncs = 0
        var publishes: [UInt64] = []
    }

    private let state = LockedValueBox(State())

    var syncs: Int { state.withLockedValue { $0.syncs } }
    var publishes: [UInt64] { state.withLockedValue { $0.publishes } }

    func sync() { state.withLockedValue { $0.syncs += 1 } }
    func publish(_ version: UInt64) { state.withLockedValue { $0.publishes.append(version) } }
}

private struct InjectedFailure: Error {}

@Suite("GroupCommit")
struct GroupCommitTests {
    @Test("A lone writer's wait syncs once and publishes its version; waiting again does not sync")
    func singleWriter() throws {
        let group = GroupCommit(durableVersion: 0)
        let recorder = SyncRecorder()
        group.noteWritten(1)
        try group.waitUntilDurable(1, sync: recorder.sync, publish: recorder.publish)
        #expect(recorder.syncs == 1)
        #expect(recorder.publishes == [1])
        try group.waitUntilDurable(1, sync: recorder.sync, publish: recorder.publish)
        #expect(recorder.syncs == 1)
        #expect(recorder.publishes == [1])
        #expect(group.syncCount == 1)
        #expect(group.failure == nil)
    }

    @Test("Versions at or below the initial durable version need no sync")
    func alreadyDurable() throws {
        let group = GroupCommit(durableVersion: 5)
        let recorder = SyncRecorder()
        for version in UInt64(0)...5 {
            try group.waitUntilDurable(version, sync: recorder.sync, publish: recorder.publish)
        }
        #expect(recorder.syncs == 0)
        #expect(recorder.publishes.isEmpty)
        #expect(group.syncCount == 0)
    }

    @Test("One sync covers every version written before it, so later waiters of those versions do not sync")
    func leaderCoversEverythingWritten() throws {
        let group = GroupCommit(durableVersion: 0)
        let recorder = SyncRecorder()
        for version in UInt64(1)...3 { group.noteWritten(version) }
        try group.waitUntilDurable(1, sync: recorder.sync, publish: recorder.publish)
        #expect(recorder.publishes == [3])
        try group.waitUntilDurable(2, sync: recorder.sync, publish: recorder.publish)
        try group.waitUntilDurable(3, sync: recorder.sync, publish: recorder.publish)
        #expect(recorder.syncs == 1)
        group.noteWritten(4)
        try group.waitUntilDurable(4, sync: recorder.sync, publish: recorder.publish)
        #expect(recorder.syncs == 2)
        #expect(recorder.publishes == [3, 4])
    }

    @Test("Concurrent writers share syncs; each returns only after its version is published, in order")
    func concurrentWriters() throws {
        let threads = 8
        let cycles = 50
        let total = UInt64(threads * cycles)
        let group = GroupCommit(durableVersion: 0)
        // The engine's write lock: versions are assigned and noted in order under it.
        let writeLock = LockedValueBox<UInt64>(0)

        struct Shared {
            var syncCalls = 0
            var syncing = false
            var writtenAtSyncStart: UInt64 = 0
            var published: [UInt64] = []
            var problems: [String] = []
            var returned = 0
        }
        let shared = LockedValueBox(Shared())

        // Real threads: DispatchQueue.concurrentPerform caps the writers at the core count (2 here),
        // and under a loaded test run at 1, which leaves nothing to group.
        let finished = DispatchGroup()
        for thread in 0..<threads {
            finished.enter()
            Thread.detachNewThread {
            defer { finished.leave() }
            for cycle in 0..<cycles {
                let version = writeLock.withLockedValue { last -> UInt64 in
                    last += 1
                    group.noteWritten(last)
                    return last
                }
                do {
                    try group.waitUntilDurable(
                        version,
                        sync: {
                            let written = writeLock.withLockedValue { $0 }
                            shared.withLockedValue {
                                if $0.syncing { $0.problems.append("two syncs ran at once") }
                                $0.syncing = true
                                $0.syncCalls += 1
                                $0.writtenAtSyncStart = written
                            }
                            usleep(2000)
                            shared.withLockedValue { $0.syncing = false }
                        },
                        publish: { published in
                            shared.withLockedValue {
                                if published > $0.writtenAtSyncStart {
                                    $0.problems.append("published \(published) beyond \($0.writtenAtSyncStart) written")
                                }
                                $0.published.append(published)
                            }
                        })
                } catch {
                    shared.withLockedValue { $0.problems.append("thread \(thread) cycle \(cycle): \(error)") }
                    continue
                }
                shared.withLockedValue {
                    let highest = $0.published.max() ?? 0
                    if highest < version {
                        $0.problems.append("version \(version) returned with only \(highest) published")
                    }
                    $0.returned += 1
                }
            }
            }
        }
        finished.wait()

        let result = shared.withLockedValue { $0 }
        #expect(result.problems.isEmpty, "\(result.problems.prefix(10))")
        #expect(result.returned == threads * cycles)
        #expect(result.published == result.published.sorted(), "publish values never decrease")
        #expect(result.published.last == total)
        #expect(result.published.count == result.syncCalls, "one publish per successful sync")
        #expect(UInt64(result.syncCalls) == group.syncCount)
        #expect(result.syncCalls < threads * cycles, "syncs were shared: \(result.syncCalls) for \(total) commits")
        #expect(group.failure == nil)
    }

    // MARK: - Gathering

    @Test("A leader gathers before it syncs: records written meanwhile share its sync, within a bound the syncs set")
    func leaderGathersWriters() throws {
        let group = GroupCommit(durableVersion: 0)
        let recorder = SyncRecorder()
        let bounds = LockedValueBox<[Duration]>([])
        // The first leader has no sync time to go by: it does not gather.
        group.noteWritten(1)
        try group.waitUntilDurable(1, gather: { bound in
            Issue.record("gathered for \(bound) without a sync time")
            return true
        }, sync: { usleep(5_000); recorder.sync() }, publish: recorder.publish)
        // The next one may wait about as long as that sync took (5 ms), at most `longestGathering`;
        // a writer that writes its record meanwhile is in its group.
        group.noteWritten(2)
        try group.waitUntilDurable(2, gather: { bound in
            bounds.withLockedValue { $0.append(bound) }
            group.noteWritten(3)
            return true
        }, sync: recorder.sync, publish: recorder.publish)
        #expect(recorder.publishes == [1, 3])
        try group.waitUntilDurable(3, gather: { _ in
            Issue.record("version 3 is durable: no leader")
            return true
        }, sync: recorder.sync, publish: recorder.publish)
        #expect(recorder.syncs == 2)
        #expect(bounds.withLockedValue { $0 } == [GroupCommit.longestGathering], "a 5 ms sync: the bound is capped at 2 ms")
    }

    @Test("Gatherings that wait out their bound for nothing make the next 1, 3, 7, 15 leaders sync at once; one that gains a record ends that")
    func fruitlessGatheringsBackOff() throws {
        let group = GroupCommit(durableVersion: 0)
        let recorder = SyncRecorder()
        var version: UInt64 = 1
        group.noteWritten(version)
        try group.waitUntilDurable(version, sync: { usleep(1_000); recorder.sync() }, publish: recorder.publish)

        /// Commits one version as its leader; returns whether the leader gathered. A gathering
        /// times out without a record unless `joins`, when another writer's record arrives.
        func commit(joins: Bool = false) throws -> Bool {
            version += 1
            group.noteWritten(version)
            var gathered = false
            try group.waitUntilDurable(version, gather: { _ in
                gathered = true
                guard joins else { return false }
                version += 1
                group.noteWritten(version)
                return true
            }, sync: recorder.sync, publish: recorder.publish)
            return gathered
        }

        // Timed out for nothing: skip 1, gather (for nothing again): skip 3, then 7.
        var pattern: [Bool] = []
        for _ in 0..<15 { pattern.append(try commit()) }
        #expect(pattern == [true, false, true, false, false, false, true, false, false, false, false, false, false, false, true])
        // The fourth fruitless one skips the next 15; then a gathering gains a record, and every
        // leader gathers again.
        for _ in 0..<15 { #expect(try commit() == false) }
        #expect(try commit(joins: true))
        #expect(try commit(joins: true))
        #expect(try commit(joins: true))
        #expect(recorder.publishes.last == version)
    }

    // MARK: - Poisoning

    @Test("A failed sync throws poisoned to its waiter and to every later waiter, without syncing or publishing")
    func poisoning() throws {
        let group = GroupCommit(durableVersion: 0)
        let recorder = SyncRecorder()
        group.noteWritten(1)
        try group.waitUntilDurable(1, sync: recorder.sync, publish: recorder.publish)

        group.noteWritten(2)
        let first = #expect(throws: StrataError.self) {
            try group.waitUntilDurable(
                2,
                sync: {
                    throw StrataError(.fileAccess, "disk on fire", path: "/log/segment", errno: EIO)
                }, publish: recorder.publish)
        }
        #expect(first?.code == .poisoned)
        #expect(first?.path == "/log/segment")
        #expect(first?.errno == EIO)
        #expect(group.failure?.code == .poisoned)
        #expect(group.failure?.message.contains("disk on fire") == true)

        group.noteWritten(3)
        for version in [UInt64(2), 3] {
            let later = #expect(throws: StrataError.self) {
                try group.waitUntilDurable(version, sync: recorder.sync, publish: recorder.publish)
            }
            #expect(later?.code == .poisoned, "version \(version)")
        }
        #expect(recorder.syncs == 1, "no sync after the failure")
        #expect(recorder.publishes == [1], "nothing published after the failure")
        #expect(group.syncCount == 1)
    }

    @Test("A writer whose version an earlier sync made durable returns, though a later sync failed before it waited")
    func durableBeforeTheFailureReturns() throws {
        let group = GroupCommit(durableVersion: 0)
        let recorder = SyncRecorder()
        // Writers of versions 1 and 2 write their records; the writer of 2 syncs both.
        group.noteWritten(1)
        group.noteWritten(2)
        try group.waitUntilDurable(2, sync: recorder.sync, publish: recorder.publish)
        // Version 3's sync fails.
        group.noteWritten(3)
        let failed = #expect(throws: StrataError.self) {
            try group.waitUntilDurable(3, sync: { throw InjectedFailure() }, publish: recorder.publish)
        }
        #expect(failed?.code == .poisoned)
        // The writer of version 1, descheduled until now, finds it durable and published.
        try group.waitUntilDurable(1, sync: recorder.sync, publish: recorder.publish)
        // A version no successful sync covered is refused.
        group.noteWritten(4)
        let later = #expect(throws: StrataError.self) {
            try group.waitUntilDurable(4, sync: recorder.sync, publish: recorder.publish)
        }
        #expect(later?.code == .poisoned)
        #expect(recorder.syncs == 1 && recorder.publishes == [2])
    }

    @Test("A sync that throws a non-Strata error poisons the group too")
    func poisoningByForeignError() {
        let group = GroupCommit(durableVersion: 0)
        group.noteWritten(1)
        let error = #expect(throws: StrataError.self) {
            try group.waitUntilDurable(1, sync: { throw InjectedFailure() }, publish: { _ in })
        }
        #expect(error?.code == .poisoned)
        #expect(group.failure != nil)
    }

    @Test("With concurrent writers, a failed sync releases no unpublished waiter: all of them throw poisoned")
    func concurrentPoisoning() {
        let threads = 8
        let cycles = 20
        let failingSync = 3
        let group = GroupCommit(durableVersion: 0)
        let writeLock = LockedValueBox<UInt64>(0)

        struct Shared {
            var syncCalls = 0
            var published: UInt64 = 0
            var publishCalls = 0
            var returned: [UInt64] = []
            var poisoned: [UInt64] = []
            var problems: [String] = []
        }
        let shared = LockedValueBox(Shared())

        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<cycles {
                let version = writeLock.withLockedValue { last -> UInt64 in
                    last += 1
                    group.noteWritten(last)
                    return last
                }
                do {
                    try group.waitUntilDurable(
                        version,
                        sync: {
                            let call = shared.withLockedValue {
                                $0.syncCalls += 1; return $0.syncCalls
                            }
                            usleep(2000)
                            if call == failingSync { throw InjectedFailure() }
                        },
                        publish: { published in
                            shared.withLockedValue {
                                $0.published = max($0.published, published)
                                $0.publishCalls += 1
                            }
                        })
                    shared.withLockedValue {
                        if $0.published < version { $0.problems.append("\(version) returned unpublished") }
                        $0.returned.append(version)
                    }
                } catch let error as StrataError where error.code == .poisoned {
                    shared.withLockedValue { $0.poisoned.append(version) }
                } catch {
                    shared.withLockedValue { $0.problems.append("unexpected \(error)") }
                }
            }
        }

        let result = shared.withLockedValue { $0 }
        #expect(result.problems.isEmpty, "\(result.problems.prefix(10))")
        #expect(result.returned.count + result.poisoned.count == threads * cycles)
        #expect(result.syncCalls == failingSync, "no sync runs after the failure")
        #expect(result.publishCalls == failingSync - 1)
        #expect(!result.poisoned.isEmpty)
        #expect(result.returned.allSatisfy { $0 <= result.published })
        #expect(result.poisoned.allSatisfy { $0 > result.published }, "a published version was reported as failed")
        #expect(group.failure != nil)
    }
}
