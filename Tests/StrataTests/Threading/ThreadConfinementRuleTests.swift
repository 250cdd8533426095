#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Strata
import StrataSupport
import StrataTestSupport
import Testing

/// A fresh in-memory configuration with the notification test models.
func confinementConfiguration(_ name: String) -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "\(name)-\(UUID())",
                        objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self])
}

/// Realm Swift's confinement rules: a Realm opened without a queue belongs to its thread (compared
/// by thread identity, whatever queue's block the thread runs); one opened with a queue belongs
/// to the queue, whichever thread runs it.
@Suite("Thread confinement rules")
struct ThreadConfinementRuleTests {
    @Test("a Realm opened on the main thread stays usable there inside a serial queue's sync block and a concurrentPerform iteration, and in main-queue blocks")
    func mainThreadRealm() throws {
        // Swift Testing never runs a body on the main thread on Linux (not even an exit test's):
        // open the Realm as the main thread does, on this thread. The main thread never runs
        // alongside the main queue (it drains it, or parks in `dispatchMain()`), so the
        // simulated main thread runs inside a main-queue block: the Realm's deliveries on the
        // main queue cannot overlap it, as they cannot overlap the real main thread.
        let (box, written) = try DispatchQueue.main.sync { () throws -> (UncheckedBox<Realm>, Int) in
            let configuration = confinementConfiguration("main-thread")
            let realm = try Realm(configuration: configuration) { store in
                try RealmState.forCurrentThread(store: store, place: .mainThread)
            }
            #expect((realm.state.scheduler as? DispatchQueueScheduler)?.queue.label == DispatchQueue.main.label)
            let queue = DispatchQueue(label: "main-thread-sync")
            try queue.sync {
                try realm.write { realm.add(NoteDog(value: ["id": 100])) }
                let again = try Realm(configuration: configuration)
                #expect(again.state === realm.state)
            }
            let caller = pthread_self()
            let box = UncheckedBox(realm)
            let failures = FailureLog()
            // The calling thread takes part in `concurrentPerform`, but worker threads may take every
            // iteration before it starts (seen under ThreadSanitizer): iterations on other threads
            // wait (bounded) until the caller has run one, so the caller's path is always taken.
            let callerWrites = LockedValueBox(0)
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                guard pthread_equal(caller, pthread_self()) != 0 else {
                    waitUntil(timeout: 10) { callerWrites.withLockedValue { $0 } > 0 }
                    return
                }
                do {
                    try box.value.write { box.value.add(NoteDog(value: ["id": index])) }
                    callerWrites.withLockedValue { $0 += 1 }
                } catch {
                    failures.record("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            let written = callerWrites.withLockedValue { $0 }
            #expect(written >= 1, "no concurrentPerform iteration ran on the calling thread")
            return (box, written)
        }
        // A main-queue block, whichever thread runs it, may use the main thread's Realm.
        let count = UncheckedBox(0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            count.value = box.value.objects(NoteDog.self).count
            done.signal()
        }
        done.wait()
        #expect(count.value == 1 + written)
    }

    @MainActor
    @Test("@MainActor code (main-queue blocks on Linux) can open and write a Realm inside a serial queue's sync block")
    func mainActorInsideQueueSync() throws {
        let configuration = confinementConfiguration("main-actor-sync")
        let count = try DispatchQueue(label: "main-actor-sync").sync {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(NoteDog(value: ["id": 1])) }
            return realm.objects(NoteDog.self).count
        }
        #expect(count == 1)
    }

    @MainActor
    @Test("a Realm opened in @MainActor code is confined to the main queue: usable across awaits, and it delivers there")
    func mainActorRealmAcrossAwaits() async throws {
        let configuration = confinementConfiguration("main-actor")
        let realm = try Realm(configuration: configuration)
        let (changes, continuation) = AsyncStream.makeStream(of: Int.self)
        let token = realm.objects(NoteDog.self).observe { change in
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _): continuation.yield(dogs.count)
            case .error: continuation.yield(-1)
            }
        }
        var counts = changes.makeAsyncIterator()
        #expect(await counts.next() == 0)
        try await Task.detached {
            let other = try Realm(configuration: configuration)
            try other.write { other.add(NoteDog(value: ["id": 1])) }
        }.value
        #expect(await counts.next() == 1)
        #expect(realm.objects(NoteDog.self).count == 1)
        token.invalidate()
    }

    @Test("on another thread, a Realm opened inside a serial queue's sync block is that thread's")
    func otherThreadInsideQueueSync() throws {
        let configuration = confinementConfiguration("thread-sync")
        let queue = DispatchQueue(label: "thread-sync")
        try onNewThread {
            let outside = try Realm(configuration: configuration)
            try queue.sync {
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.add(NoteDog(value: ["id": 1])) }
                try outside.write { outside.add(NoteDog(value: ["id": 2])) }
            }
            #expect(outside.objects(NoteDog.self).count == 2)
        }
    }

    @Test("DispatchQueue.concurrentPerform from another thread: each iteration opens and writes its own Realm")
    func concurrentPerformFromOtherThread() throws {
        let configuration = confinementConfiguration("perform-thread")
        try onNewThread { try Self.writeInConcurrentPerform(configuration) }
    }

    /// Eight iterations each add one dog in their own Realm and read it back; the store, kept
    /// open by a Realm of the calling thread, ends with eight dogs.
    private static func writeInConcurrentPerform(_ configuration: Realm.Configuration) throws {
        let keeper = try Realm(configuration: configuration)
        let failures = FailureLog()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do {
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.add(NoteDog(value: ["id": index])) }
                if realm.object(ofType: NoteDog.self, forPrimaryKey: index) == nil {
                    failures.record("dog \(index) not read back")
                }
            } catch {
                failures.record("\(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        keeper.refresh()
        #expect(keeper.objects(NoteDog.self).count == 8)
    }

    @Test("a Realm opened with a queue is confined to the queue: usable from its sync blocks on the main thread and other threads and from its async blocks")
    func queueConfinedRealm() throws {
        let configuration = confinementConfiguration("queue-confined")
        let queue = DispatchQueue(label: "queue-confined")
        let box = UncheckedBox<Realm?>(nil)
        try queue.sync {
            let realm = try Realm(configuration: configuration, queue: queue)
            box.value = realm
            try realm.write { realm.add(NoteDog(value: ["id": 1])) }
        }
        let written = DispatchSemaphore(value: 0)
        queue.async {
            try? box.value?.write { box.value?.add(NoteDog(value: ["id": 2])) }
            written.signal()
        }
        written.wait()
        let seen = UncheckedBox(0)
        try onNewThread { queue.sync { seen.value = box.value?.objects(NoteDog.self).count ?? -1 } }
        #expect(seen.value == 2)
        // Opening again on the queue gives the same Realm state.
        let same = try queue.sync { try Realm(configuration: configuration, queue: queue).state === box.value?.state }
        #expect(same)
        queue.sync { box.value = nil }
    }

    @Test("on a thread, a Realm opened per call reaches the write begun through another: begin, create and commit through temporary Realms")
    func temporaryRealmsShareTheOpenWrite() throws {
        let configuration = confinementConfiguration("temporary-realms")
        let kept = try Realm(configuration: configuration)  // keeps the in-memory store open
        let failures = onAnotherThread {
            try Realm(configuration: configuration).beginWrite()
            try Realm(configuration: configuration).create(NoteDog.self, value: ["id": 1])
            #expect(try Realm(configuration: configuration).isInWriteTransaction)
            try Realm(configuration: configuration).commitWrite()
            #expect(try !Realm(configuration: configuration).isInWriteTransaction)
            #expect(try Realm(configuration: configuration).objects(NoteDog.self).count == 1)
        }
        #expect(failures.isEmpty, "\(failures)")
        kept.refresh()
        #expect(kept.objects(NoteDog.self).count == 1)
    }

    @Test("a thread that ends with a write open cancels it, so other threads can write")
    func threadEndingInAWriteCancelsIt() throws {
        let configuration = confinementConfiguration("abandoned-write")
        let kept = try Realm(configuration: configuration)  // keeps the in-memory store open
        let failures = onAnotherThread {
            let realm = try Realm(configuration: configuration)
            realm.beginWrite()
            realm.create(NoteDog.self, value: ["id": 1])
        }
        #expect(failures.isEmpty, "\(failures)")
        try kept.write { kept.create(NoteDog.self, value: ["id": 2]) }
        #expect(kept.objects(NoteDog.self).map(\.id) == [2])
    }

    @Test("a thread's Realm used from another thread traps with Realm's message")
    func threadRealmOnOtherThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try! Realm(configuration: confinementConfiguration("wrong-thread"))
            let box = UncheckedBox(realm)
            try! onNewThread { _ = box.value.objects(NoteDog.self).count }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Realm accessed from incorrect thread."), "\(message)")
    }

    @Test("an object whose row its own thread has read (the cached read path) traps with Realm's message when another thread reads it")
    func cachedObjectReadOnOtherThreadTraps() async {
        // The cached read is inlined into the model's module: its thread check must hold there.
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try! Realm(configuration: confinementConfiguration("cached-read"))
            try! realm.write { realm.add(NoteDog(value: ["id": 1, "name": "Rex", "age": 3])) }
            let dog = realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!
            precondition(dog.name == "Rex" && dog.age == 3, "the owning thread reads the row")
            let box = UncheckedBox(dog)
            try! onNewThread { _ = box.value.age }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Realm accessed from incorrect thread."), "\(message)")
    }

    @Test("a queue's Realm used outside the queue traps with Realm's message")
    func queueRealmOffQueueTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "off-queue")
            let realm = try! queue.sync {
                try Realm(configuration: confinementConfiguration("off-queue"), queue: queue)
            }
            _ = realm.objects(NoteDog.self).count
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Realm accessed from incorrect thread."), "\(message)")
    }
}
