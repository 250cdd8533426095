import Foundation
@testable import Strata
import Testing
import StrataTestSupport

/// A thread that holds the write lock of a Realm (an open write transaction) until released,
/// then commits a dog with `id`.
private final class WriteLockHolder: Sendable {
    private let holding = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let finished: DispatchGroup

    init(_ configuration: Realm.Configuration, committingDog id: Int) {
        let holding = holding, release = release
        finished = startThreads(1) { _ in
            let realm = try! Realm(configuration: configuration)
            realm.beginWrite()
            realm.add(NoteDog(value: ["id": id]))
            holding.signal()
            release.wait()
            try! realm.commitWrite()
        }
        holding.wait()
    }

    /// Commits the held write and waits for the thread to end.
    func commit() {
        release.signal()
        finished.wait()
    }
}

/// An actor owning a Realm, which records what its writes' blocks saw.
private actor WaitingWriter {
    var realm: Realm!
    private(set) var blocksRun = 0

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func add(id: Int) async throws {
        try await realm.asyncWrite {
            blocksRun += 1
            realm.add(NoteDog(value: ["id": id]))
        }
    }

    func count() -> Int {
        realm.refresh()
        return realm.objects(NoteDog.self).count
    }
}

@Suite("asyncWrite waits for the write lock by suspending", .timeLimit(.minutes(1)))
struct AsyncWriteWaitTests {
    /// An actor's Realm, another thread holding the write lock (its write adds dog 1), and the
    /// actor's `asyncWrite` of dog 2 started behind it.
    private static func writeBehindHeldLock(_ name: String) async throws
        -> (writer: WaitingWriter, holder: WriteLockHolder, write: Task<Void, any Error>) {
        let configuration = confinementConfiguration(name)
        let writer = try await WaitingWriter(configuration: configuration)
        let holder = WriteLockHolder(configuration, committingDog: 1)
        return (writer, holder, Task { try await writer.add(id: 2) })
    }

    @Test("while another writer holds the lock, asyncWrite suspends: its actor keeps serving, and it commits once the lock is free")
    func suspendsWhileLocked() async throws {
        let (writer, holder, write) = try await Self.writeBehindHeldLock("async-write-wait")
        // The actor answers while its write waits: a blocked write would hold it until the commit.
        for _ in 0..<20 {
            #expect(await writer.count() == 0)
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await writer.blocksRun == 0)
        holder.commit()
        try await write.value
        #expect(await writer.blocksRun == 1)
        #expect(await writer.count() == 2)
    }

    @Test("a task cancelled while asyncWrite waits throws CancellationError, its block never runs, and the lock is not kept")
    func cancelledWhileWaiting() async throws {
        let (writer, holder, write) = try await Self.writeBehindHeldLock("async-write-cancel")
        try await Task.sleep(for: .milliseconds(20))
        write.cancel()
        await #expect(throws: CancellationError.self) { try await write.value }
        #expect(await writer.blocksRun == 0)
        holder.commit()
        try await writer.add(id: 3)
        #expect(await writer.count() == 2)
        #expect(await writer.blocksRun == 1)
    }

    @Test("asyncWrite in an already cancelled task throws CancellationError without writing")
    func alreadyCancelled() async throws {
        let configuration = confinementConfiguration("async-write-precancelled")
        let writer = try await WaitingWriter(configuration: configuration)
        let write = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await writer.add(id: 1)
        }
        await #expect(throws: CancellationError.self) { try await write.value }
        #expect(await writer.count() == 0)
        #expect(await writer.blocksRun == 0)
    }
}
