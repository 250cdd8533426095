import Foundation
@testable import Strata
import Testing
import StrataTestSupport

private final class DogHolder: @unchecked Sendable {
    @ThreadSafe var dog: NoteDog?
    @ThreadSafe var dogs: Results<NoteDog>?
}

@Suite("Thread confinement")
struct ConfinementTests {
    @Test("@ThreadSafe values resolve on each reading thread; nil once deleted")
    func threadSafeWrapper() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let holder = DogHolder()
        try onNewThread {
            let realm = try fixture.realm()
            holder.dog = fixture.dog(realm, 2)
            holder.dogs = realm.objects(NoteDog.self).where { $0.age > 25 }
        }
        #expect(fixture.harness.run { holder.dog?.name } == "d2")
        #expect(fixture.harness.run { holder.dogs?.count } == 3)
        // Read twice on one thread, and on another.
        try onNewThread { #expect(holder.dog?.age == 20 && holder.dog?.age == 20) }
        try fixture.write { realm in realm.delete(fixture.dog(realm, 2)) }
        #expect(fixture.harness.run { holder.dog == nil })
        holder.dog = nil
    }

    @Test("@ThreadSafe: a write through the value on another thread, read back there, is seen by the next read here")
    func threadSafeWriteSeenBack() throws {
        let configuration = confinementConfiguration("thread-safe-write-back")
        let realm = try Realm(configuration: configuration)
        let holder = DogHolder()
        holder.dog = try realm.write { realm.create(NoteDog.self, value: ["id": 1, "name": "before"]) }
        let failures = onAnotherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { holder.dog?.name = "after" }
            #expect(holder.dog?.name == "after")
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(holder.dog?.name == "after", "this thread's Realm refreshed to the version read there")
    }

    @Test("a managed object used on another thread traps with Realm's message")
    func wrongThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "wrong-thread",
                                                                      objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
            try! realm.write { realm.add(NoteDog(value: ["id": 1])) }
            let dog = UncheckedBox(realm.objects(NoteDog.self).first!)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                _ = dog.value.name
                done.signal()
            }
            thread.start()
            done.wait()
        }
    }

    @Test("an unmanaged object given to @ThreadSafe traps with Realm's message")
    func threadSafeUnmanagedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DogHolder().dog = NoteDog()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Only managed objects may be wrapped as thread safe."))
    }
}
