import Foundation
@testable import Strata
import Testing
import StrataTestSupport

/// Runs `body` on a new thread and waits for it.
func onNewThread(_ body: @escaping @Sendable () throws -> Void) throws {
    let failure = UncheckedBox<(any Error)?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        do { try body() } catch { failure.value = error }
        done.signal()
    }
    thread.start()
    done.wait()
    if let error = failure.value { throw error }
}

@Suite("ThreadSafeReference")
struct ThreadSafeReferenceTests {
    @Test("an object resolves on an event loop thread and on a dispatch queue, at most once each")
    func resolvesOnLoopAndQueue() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let (toLoop, toQueue) = try onOwnThread(fixture) { realm in
            (ThreadSafeReference(to: fixture.dog(realm, 2)), ThreadSafeReference(to: realm.objects(NoteDog.self).where { $0.age >= 30 }))
        }
        let name = try fixture.harness.run { try fixture.realm().resolve(toLoop)?.name }
        #expect(name == "d2")
        #expect(toLoop.isInvalidated)

        let queue = DispatchQueue(label: "resolve-queue")
        let configuration = fixture.configuration
        let ages = try queue.sync {
            let realm = try Realm(configuration: configuration, queue: queue)
            return realm.resolve(toQueue).map { Array($0.map(\.age)) }
        }
        #expect(ages == [30, 40, 50])
    }

    @Test("a results reference carries its query and runs it at the resolving Realm's version")
    func resultsRerunQuery() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let reference = try onOwnThread(fixture) { realm in ThreadSafeReference(to: realm.objects(NoteDog.self).where { $0.age > 25 }) }
        try fixture.write { $0.add(NoteDog(value: ["id": 99, "age": 26])) }
        let count = try fixture.harness.run { () -> Int? in
            let realm = try fixture.realm()
            _ = realm.objects(NoteDog.self).count  // reading: the Realm is at the newest version
            return realm.resolve(reference)?.count
        }
        #expect(count == 4)
    }

    @Test("a Realm opened and not read yet begins reading at the reference's version, as Realm's does")
    func freshRealmReadsReferenceVersion() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let (results, dog) = try onOwnThread(fixture) { realm in
            (ThreadSafeReference(to: realm.objects(NoteDog.self).where { $0.age > 25 }),
             ThreadSafeReference(to: fixture.dog(realm, 1)))
        }
        try fixture.write { realm in
            realm.add(NoteDog(value: ["id": 99, "age": 26]))
            realm.delete(fixture.dog(realm, 1))
        }
        try onNewThread {
            let realm = try fixture.realm()
            let resolved = try #require(realm.resolve(results))
            #expect(resolved.count == 3)
            #expect(realm.resolve(dog)?.age == 10, "the dog still exists at the reference's version")
            realm.refresh()
            #expect(resolved.count == 4)
        }
    }

    @Test("an object deleted before the resolve, or a list whose owner was deleted, resolves to nil")
    func deletedBeforeResolve() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let (dog, dogs) = try onOwnThread(fixture) { realm in
            (ThreadSafeReference(to: fixture.dog(realm, 1)), ThreadSafeReference(to: fixture.person(realm, 0).dogs))
        }
        try fixture.write { realm in
            realm.delete(fixture.dog(realm, 1))
            realm.delete(fixture.person(realm, 0))
        }
        try fixture.harness.run {
            let realm = try fixture.realm()
            realm.refresh()
            #expect(realm.resolve(dog) == nil)
            #expect(realm.resolve(dogs) == nil)
        }
    }

    @Test("an invalidated Realm resolves at the reference's version; an older Realm refreshes first")
    func resolvingVersion() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        // An older Realm: opened on the loop before the object existed.
        _ = try fixture.harness.run { try fixture.realm().version }
        let (newDog, oldAge) = try onOwnThread(fixture) { realm in
            try realm.write { realm.add(NoteDog(value: ["id": 50, "name": "new"])) }
            return (ThreadSafeReference(to: fixture.dog(realm, 50)), ThreadSafeReference(to: fixture.dog(realm, 3)))
        }
        let name = try fixture.harness.run { try fixture.realm().resolve(newDog)?.name }
        #expect(name == "new")

        let age = try onOwnThread(fixture) { realm in
            realm.invalidate()
            try onNewThread {
                let other = try fixture.realm()
                try other.write { fixture.dog(other, 3).age = 333 }
            }
            return realm.resolve(oldAge)?.age
        }
        #expect(age == 30)
    }

    @Test("a reference made inside a write resolves at the newest version")
    func madeInsideWrite() throws {
        let fixture = try NotificationFixture()
        let reference = try onOwnThread(fixture) { realm in
            try realm.write {
                let dog = NoteDog(value: ["id": 7, "name": "fresh"])
                realm.add(dog)
                return ThreadSafeReference(to: dog)
            }
        }
        let name = try fixture.harness.run { try fixture.realm().resolve(reference)?.name }
        #expect(name == "fresh")
    }

    @Test("a reference resolved in a Realm of another file is nil there, and used up, as in Realm")
    func otherFileResolvesNil() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let reference = try onOwnThread(fixture) { realm in ThreadSafeReference(to: fixture.dog(realm, 1)) }
        try onNewThread {
            let other = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "other-file-\(UUID())",
                                                                     objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
            #expect(other.resolve(reference) == nil)
        }
        #expect(reference.isInvalidated)
    }

    @Test("resolving a reference twice traps with Realm's message")
    func doubleResolveTraps() async {
        await #expect(processExitsWith: .failure) {
            let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "double-resolve",
                                                                      objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
            try! realm.write { realm.add(NoteDog(value: ["id": 1])) }
            let reference = ThreadSafeReference(to: realm.objects(NoteDog.self).first!)
            _ = realm.resolve(reference)
            _ = realm.resolve(reference)
        }
    }

    @Test("a reference to an unmanaged object traps")
    func unmanagedTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = ThreadSafeReference(to: NoteDog())
        }
    }

    /// Runs `body` with a Realm on a fresh thread (not the fixture's loop) and returns its result.
    private func onOwnThread<T>(_ fixture: NotificationFixture, _ body: @escaping (Realm) throws -> T) throws -> T {
        let result = UncheckedBox<T?>(nil)
        let body = UncheckedBox(body)
        try onNewThread {
            let realm = try fixture.realm()
            result.value = try body.value(realm)
        }
        return result.value!
    }
}

final class HandoverBag: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var tags: MutableSet<String>
    @Persisted var dogs: Map<String, NoteDog?>
}

@Suite("ThreadSafeReference and freezing for every collection kind")
struct CollectionHandoverTests {
    @Test("sets, maps, linking objects and AnyRealmCollection resolve on another thread and freeze")
    func everyKind() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self, HandoverBag.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let person = realm.create(NotePerson.self, value: ["id": 1, "name": "p"])
            let dog = realm.create(NoteDog.self, value: ["id": 1, "name": "d", "owner": person] as [String: Any])
            let bag = realm.create(HandoverBag.self, value: ["id": 1])
            bag.tags.insert(objectsIn: ["a", "b"])
            bag.dogs["rex"] = dog
        }
        let bag = realm.object(ofType: HandoverBag.self, forPrimaryKey: 1)!
        let person = realm.object(ofType: NotePerson.self, forPrimaryKey: 1)!
        let tags = ThreadSafeReference(to: bag.tags)
        let dogs = ThreadSafeReference(to: bag.dogs)
        let owned = ThreadSafeReference(to: person.ownedDogs)
        let any = ThreadSafeReference(to: AnyRealmCollection(realm.objects(NoteDog.self)))
        let resolved = UncheckedBox<[String]>([])
        try onNewThread {
            let other = try Realm(configuration: configuration)
            resolved.value = [
                other.resolve(tags).map { $0.sorted().joined() } ?? "nil",
                other.resolve(dogs).map { $0["rex"]??.name ?? "none" } ?? "nil",
                other.resolve(owned).map { "\($0.count)" } ?? "nil",
                other.resolve(any).map { "\($0.count)" } ?? "nil",
            ]
        }
        #expect(resolved.value == ["ab", "d", "1", "1"])

        let frozenTags = bag.tags.freeze()
        try realm.write { bag.tags.insert("c") }
        #expect(frozenTags.isFrozen && frozenTags.count == 2 && bag.tags.count == 3)
        #expect(frozenTags.thaw()?.count == 3)
    }
}
