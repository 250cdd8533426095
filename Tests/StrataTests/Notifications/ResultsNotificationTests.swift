import Foundation
@testable import Strata
import Testing
import StrataTestSupport

final class NoteDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var owner: NotePerson?
}

final class NotePerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var dogs: List<NoteDog>
    @Persisted var address: NoteAddress?
    @Persisted var pets: Map<String, NoteDog?>
    @Persisted(originProperty: "owner") var ownedDogs: LinkingObjects<NoteDog>
}

final class NoteAddress: Object {
    @Persisted var city: String
}

/// A Realm on a loop thread, with helpers to write and to describe changes.
struct NotificationFixture {
    let harness: LoopHarness
    let configuration: Realm.Configuration

    /// The loop thread's Realm, kept open so the in-memory store lives for the whole test.
    let loopRealm: UncheckedBox<Realm?> = UncheckedBox(nil)

    init() throws {
        harness = try LoopHarness()
        let configuration = Realm.Configuration(inMemoryIdentifier: "notify-\(UUID())",
                                                objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self])
        self.configuration = configuration
        let keeper = loopRealm
        try harness.run { keeper.value = try Realm(configuration: configuration) }
    }

    func realm() throws -> Realm { try Realm(configuration: configuration) }

    /// Commits `body` from the loop thread's Realm.
    func write(_ body: @escaping (Realm) -> Void) throws {
        try harness.run {
            let realm = try realm()
            try realm.write { body(realm) }
        }
    }

    /// Commits `body` from a Realm on another thread.
    func writeFromOtherThread(_ body: @escaping @Sendable (Realm) -> Void) throws {
        try onOtherThread { realm in try realm.write { body(realm) } }
    }

    /// Runs `body` with a Realm on a new thread, and waits for it.
    func onOtherThread(_ body: @escaping @Sendable (Realm) throws -> Void) throws {
        let configuration = self.configuration
        let failure = UncheckedBox<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                try body(try Realm(configuration: configuration))
            } catch {
                failure.value = error
            }
            done.signal()
        }
        thread.start()
        done.wait()
        if let error = failure.value { throw error }
    }
}

func describe<C>(_ change: RealmCollectionChange<C>) -> String {
    switch change {
    case .initial: return "initial"
    case .update(_, let deletions, let insertions, let modifications):
        return "d\(deletions) i\(insertions) m\(modifications)"
    case .error(let error): return "error \(error)"
    }
}

@Suite("Results notifications")
struct ResultsNotificationTests {
    @Test("a filtered, sorted Results reports exact indices for inserts, deletes, modifications and moves")
    func filteredSorted() throws {
        let fixture = try NotificationFixture()
        try fixture.write { realm in
            for id in 0..<6 { realm.add(NoteDog(value: ["id": id, "name": "d\(id)", "age": id * 10])) }
        }
        // Matches: age >= 10 sorted by age descending: ids 5,4,3,2,1 (ages 50..10)
        let token = try fixture.harness.run {
            let realm = try fixture.realm()
            let results = realm.objects(NoteDog.self).where { $0.age >= 10 }.sorted(byKeyPath: "age", ascending: false)
            return results.observe { change in fixture.harness.record(describe(change)) }
        }
        #expect(fixture.harness.waitForEvents(1) == ["initial"])

        // Insert a dog aged 35: between 4 (40) and 3 (30) → new index 2.
        try fixture.write { $0.add(NoteDog(value: ["id": 10, "name": "x", "age": 35])) }
        #expect(fixture.harness.waitForEvents(2).last == "d[] i[2] m[]")

        // Delete dog 4 (old index 1 in [5,4,10,3,2,1]).
        try fixture.write { $0.delete($0.object(ofType: NoteDog.self, forPrimaryKey: 4)!) }
        #expect(fixture.harness.waitForEvents(3).last == "d[1] i[] m[]")

        // Rename dog 2 (old index 3 in [5,10,3,2,1]): modification in place.
        try fixture.write { $0.object(ofType: NoteDog.self, forPrimaryKey: 2)!.name = "renamed" }
        #expect(fixture.harness.waitForEvents(4).last == "m[3]".prefixed)

        // Dog 1 becomes the oldest: a move from old index 4 to new index 0.
        try fixture.write { $0.object(ofType: NoteDog.self, forPrimaryKey: 1)!.age = 99 }
        #expect(fixture.harness.waitForEvents(5).last == "d[4] i[0] m[]")

        // Dog 3 drops out of the query (age 5): deletion of old index 3 in [1,5,10,3,2].
        try fixture.write { $0.object(ofType: NoteDog.self, forPrimaryKey: 3)!.age = 5 }
        #expect(fixture.harness.waitForEvents(6).last == "d[3] i[] m[]")
        token.invalidate()
    }
}

@Suite("Notification tokens across threads")
struct TokenInvalidationTests {
    @Test("a collection token invalidated on another thread than its Realm's stops deliveries and unregisters, as Realm allows")
    func invalidateOffThread() throws {
        let fixture = try NotificationFixture()
        let (token, registered) = try fixture.harness.run {
            let realm = try fixture.realm()
            let token = realm.objects(NoteDog.self).observe { change in fixture.harness.record(describe(change)) }
            return (UncheckedBox(token), realm.state.registrations.count)
        }
        #expect(registered == 1)
        #expect(fixture.harness.waitForEvents(1) == ["initial"])
        token.value.invalidate()              // on the test thread, not the Realm's loop
        #expect(token.value.isInvalidated)
        try fixture.write { $0.add(NoteDog(value: ["id": 1, "name": "late", "age": 1])) }
        #expect(fixture.harness.settledEvents() == ["initial"])
        #expect(try fixture.harness.run { try fixture.realm().state.registrations.count } == 0)
    }
}

extension String {
    /// "m[3]" → "d[] i[] m[3]".
    var prefixed: String { "d[] i[] " + self }
}
