import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// A fresh in-memory configuration with the notification test models.
func confinementConfiguration(_ name: String) -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "\(name)-\(UUID())",
                        objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self])
}

/// Opens a Realm, then inside a serial queue's `sync` block opens another and writes with both:
/// all of it runs on the calling thread, so both are that thread's Realm.
func writeInsideQueueSync() throws {
    let configuration = confinementConfiguration("queue-sync")
    let queue = DispatchQueue(label: "queue-sync")
    let outside = try Realm(configuration: configuration)
    let count = try queue.sync {
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(NoteDog(value: ["id": 1, "name": "Rex"])) }
        try outside.write { outside.add(NoteDog(value: ["id": 2, "name": "Fido"])) }
        return realm.objects(NoteDog.self).count
    }
    precondition(count == 2 && outside.objects(NoteDog.self).count == 2, "both writes are read back")
}

/// Realm Swift's confinement rules: a Realm opened without a queue belongs to its thread (compared
/// by thread identity, whatever queue's block the thread runs); one opened with a queue belongs
/// to the queue, whichever thread runs it.
@Suite("Thread confinement rules")
struct ThreadConfinementRuleTests {
    @Test("on the main thread, a Realm opened inside a serial queue's sync block is the main thread's and can be written")
    func mainThreadInsideQueueSync() async {
        // Swift Testing runs test bodies (even @MainActor ones) off the main thread on Linux; an
        // exit test's body runs on its process's main thread.
        await #expect(processExitsWith: .success) {
            precondition(Thread.isMainThread, "the exit test body does not run on the main thread")
            try! writeInsideQueueSync()
        }
    }

    @MainActor
    @Test("on the thread running a @MainActor test, a Realm opened inside a serial queue's sync block can be written")
    func mainActorInsideQueueSync() throws {
        try writeInsideQueueSync()
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

    @Test("every DispatchQueue.concurrentPerform iteration, the main thread's included, opens and writes its own Realm")
    func concurrentPerformFromMainThread() async {
        await #expect(processExitsWith: .success) {
            precondition(Thread.isMainThread, "the exit test body does not run on the main thread")
            try! ThreadConfinementRuleTests.writeInConcurrentPerform(confinementConfiguration("perform-main"))
        }
    }

    @Test("DispatchQueue.concurrentPerform from another thread: each iteration opens and writes its own Realm")
    func concurrentPerformFromOtherThread() throws {
        let configuration = confinementConfiguration("perform-thread")
        try onNewThread { try Self.writeInConcurrentPerform(configuration) }
    }

    /// Eight iterations each add one dog in their own Realm and read it back; the store, kept
    /// open by a Realm of the calling thread, ends with eight dogs.
    static func writeInConcurrentPerform(_ configuration: Realm.Configuration) throws {
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
