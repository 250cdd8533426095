import Foundation
@testable import Strata
import Testing
import StrataTestSupport

func describe<M>(_ change: RealmMapChange<M>) -> String {
    switch change {
    case .initial: return "initial"
    case .update(_, let deletions, let insertions, let modifications): return "d\(deletions) i\(insertions) m\(modifications)"
    case .error(let error): return "error \(error)"
    }
}

func describe<T>(_ change: ObjectChange<T>) -> String {
    /// A value, or a linked object's type name.
    func value(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return value is ObjectBase ? "\(type(of: value))" : "\(value)"
    }
    switch change {
    case .change(_, let properties):
        return properties.map { "\($0.name):\(value($0.oldValue))->\(value($0.newValue))" }.joined(separator: ",")
    case .deleted: return "deleted"
    case .error(let error): return "error \(error)"
    }
}

extension NotificationFixture {
    /// Seeds three people (ids 0-2) and dogs 0-5 (age = id * 10); dogs 0 and 1 belong to
    /// person 0's list and are owned by person 0.
    ///
    /// The links make a cycle, as in many real models: dog 0 → owner p0 → dogs [d0, d1]. Without
    /// key paths Realm reports an object as modified when anything it reaches through up to four
    /// links changed, so a change to dog 0 also modifies dog 1 (through p0.dogs), and the
    /// expectations below say so.
    func seed() throws {
        try write { realm in
            let people = (0..<3).map { NotePerson(value: ["id": $0, "name": "p\($0)"]) }
            for person in people { realm.add(person) }
            for id in 0..<6 { realm.add(NoteDog(value: ["id": id, "name": "d\(id)", "age": id * 10])) }
            let owner = realm.object(ofType: NotePerson.self, forPrimaryKey: 0)!
            for id in 0..<2 {
                let dog = realm.object(ofType: NoteDog.self, forPrimaryKey: id)!
                owner.dogs.append(dog)
                dog.owner = owner
            }
        }
    }

    func dog(_ realm: Realm, _ id: Int) -> NoteDog { realm.object(ofType: NoteDog.self, forPrimaryKey: id)! }
    func person(_ realm: Realm, _ id: Int) -> NotePerson { realm.object(ofType: NotePerson.self, forPrimaryKey: id)! }

    /// Registers `observe` on the loop thread and waits for the initial callback when there is one.
    func observe(expectInitial: Bool = true, _ observe: @escaping (Realm) -> NotificationToken) throws -> NotificationToken {
        let token = try harness.run { observe(try realm()) }
        if expectInitial { harness.waitForEvents(1) }
        return token
    }
}

@Suite("Notification behaviour")
struct NotificationBehaviourTests {
    @Test("several commits before a delivery arrive as one change set against the last delivered state")
    func coalescing() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let token = try fixture.observe { realm in
            realm.objects(NoteDog.self).sorted(byKeyPath: "age").observe { fixture.harness.record(describe($0)) }
        }
        // Hold the loop so both commits land before it can deliver.
        let release = DispatchSemaphore(value: 0)
        fixture.harness.loop.execute { release.wait() }
        try fixture.writeFromOtherThread { $0.add(NoteDog(value: ["id": 10, "name": "x", "age": 15])) }
        try fixture.writeFromOtherThread { realm in realm.delete(realm.object(ofType: NoteDog.self, forPrimaryKey: 0)!) }
        Thread.sleep(forTimeInterval: 0.05)
        release.signal()
        // Old: 0,1,2,3,4,5 (ages 0..50); new: 1,10,2,3,4,5. Deleting dog 0 removed it from
        // p0.dogs, so dog 1 (owner p0) is modified: old index 1.
        #expect(fixture.harness.waitForEvents(2) == ["initial", "d[0] i[1] m[1]"])
        #expect(fixture.harness.settledEvents().count == 2)
        fixture.harness.run { token.invalidate() }
    }

    @Test("a change to a linked object is a modification without key paths, and only for matching key paths")
    func linkedChangesAndKeyPaths() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let harness = fixture.harness
        let tokens = try fixture.harness.run {
            let people = try fixture.realm().objects(NotePerson.self)
            return [
                people.observe { harness.record("all " + describe($0)) },
                people.observe(keyPaths: ["name"]) { harness.record("name " + describe($0)) },
                people.observe(keyPaths: ["dogs.name"]) { harness.record("dogs.name " + describe($0)) },
                people.observe(keyPaths: ["dogs.age"]) { harness.record("dogs.age " + describe($0)) },
                people.observe(keyPaths: ["dogs"]) { harness.record("dogs " + describe($0)) },
            ]
        }
        harness.waitForEvents(5)
        // Dog 1 is in person 0's list: its name changes.
        try fixture.write { fixture.dog($0, 1).name = "renamed" }
        let events = harness.settledEvents().dropFirst(5)
        #expect(Set(events) == ["all d[] i[] m[0]", "dogs.name d[] i[] m[0]"])
        // Appending to person 1's list fires "dogs" and the unfiltered observer, not the others.
        try fixture.write { fixture.person($0, 1).dogs.append(fixture.dog($0, 3)) }
        let second = harness.settledEvents().dropFirst(7)
        #expect(Set(second) == ["all d[] i[] m[1]", "dogs d[] i[] m[1]", "dogs.name d[] i[] m[1]", "dogs.age d[] i[] m[1]"])
        fixture.harness.run { for token in tokens { token.invalidate() } }
    }

    @Test("insertions and deletions are never filtered by key paths, and a sort move is reported")
    func keyPathsDoNotFilterMembership() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let token = try fixture.observe { realm in
            realm.objects(NoteDog.self).sorted(byKeyPath: "age").observe(keyPaths: ["name"]) {
                fixture.harness.record(describe($0))
            }
        }
        try fixture.write { $0.add(NoteDog(value: ["id": 20, "name": "n", "age": 5])) }
        #expect(fixture.harness.waitForEvents(2).last == "d[] i[1] m[]")
        try fixture.write { fixture.dog($0, 0).age = 100 }
        #expect(fixture.harness.waitForEvents(3).last == "d[0] i[6] m[]")
        try fixture.write { fixture.dog($0, 2).age = 21 }  // still between 1 and 3: no event
        try fixture.write { fixture.dog($0, 3).name = "renamed" }
        #expect(fixture.harness.waitForEvents(4).last == "d[] i[] m[3]")
        #expect(fixture.harness.settledEvents().count == 4)
        fixture.harness.run { token.invalidate() }
    }

    @Test("withoutNotifying drops that commit for the skipped token only")
    func withoutNotifying() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let harness = fixture.harness
        let (skipped, other) = try harness.run {
            let dogs = try fixture.realm().objects(NoteDog.self)
            return (dogs.observe { harness.record("skipped " + describe($0)) },
                    dogs.observe { harness.record("other " + describe($0)) })
        }
        harness.waitForEvents(2)
        try harness.run {
            let realm = try fixture.realm()
            try realm.write(withoutNotifying: [skipped]) { realm.add(NoteDog(value: ["id": 30, "age": 1])) }
        }
        #expect(harness.waitForEvents(3).last == "other d[] i[6] m[]")
        try fixture.write { realm in realm.delete(fixture.dog(realm, 5)) }
        let events = harness.waitForEvents(5).suffix(2)
        #expect(Set(events) == ["skipped d[5] i[] m[]", "other d[5] i[] m[]"])
        #expect(harness.settledEvents().count == 5)
        harness.run {
            skipped.invalidate()
            other.invalidate()
        }
    }

    @Test("a token invalidated inside another callback is not called again, even for that delivery")
    func invalidateInsideCallback() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let harness = fixture.harness
        let second = UncheckedBox<NotificationToken?>(nil)
        let first = try harness.run {
            let dogs = try fixture.realm().objects(NoteDog.self)
            let first = dogs.observe { change in
                harness.record("first " + describe(change))
                if case .update = change { second.value?.invalidate() }
            }
            second.value = dogs.observe { harness.record("second " + describe($0)) }
            return first
        }
        harness.waitForEvents(2)
        try fixture.write { fixture.dog($0, 0).age = 7 }
        // Dog 1 reaches dog 0 through its owner's list.
        #expect(harness.settledEvents().suffix(1) == ["first d[] i[] m[0, 1]"])
        #expect(harness.settledEvents().count == 3)
        harness.run { first.invalidate() }
    }

    @Test("releasing a token stops its notifications")
    func releasingToken() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        try fixture.harness.run {
            _ = try fixture.realm().objects(NoteDog.self).observe { fixture.harness.record(describe($0)) }
        }
        try fixture.write { fixture.dog($0, 0).age = 7 }
        #expect(fixture.harness.settledEvents().isEmpty)
    }

    @Test("objects deleted while observed: the object observer gets .deleted, Results a deletion, the list of a deleted owner empties")
    func deletionWhileObserved() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let harness = fixture.harness
        let tokens = try harness.run {
            let realm = try fixture.realm()
            return [
                fixture.dog(realm, 1).observe { (change: ObjectChange<NoteDog>) in harness.record("object " + describe(change)) },
                realm.objects(NoteDog.self).observe { harness.record("results " + describe($0)) },
                fixture.person(realm, 0).dogs.observe { harness.record("list " + describe($0)) },
            ]
        }
        harness.waitForEvents(2)
        try fixture.write { realm in realm.delete(fixture.dog(realm, 1)) }
        var events = harness.settledEvents()
        // Dog 0 is modified through p0.dogs, which lost dog 1.
        #expect(Set(events.suffix(3)) == ["object deleted", "results d[1] i[] m[0]", "list d[1] i[] m[0]"])
        try fixture.write { realm in realm.delete(fixture.person(realm, 0)) }
        events = harness.settledEvents()
        // Dog 0's owner link was cleared: a modification of dog 0; the list's owner is gone.
        #expect(Set(events.dropFirst(5)) == ["results d[] i[] m[0]", "list d[0] i[] m[]"])
        harness.run { for token in tokens { token.invalidate() } }
    }

    @Test("an object observer names changed properties; oldValue is nil for its own Realm's commits")
    func objectChanges() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let harness = fixture.harness
        let tokens = try harness.run {
            let dog = fixture.dog(try fixture.realm(), 2)
            return [
                dog.observe { (change: ObjectChange<NoteDog>) in harness.record("all " + describe(change)) },
                dog.observe(keyPaths: ["age"]) { (change: ObjectChange<NoteDog>) in harness.record("age " + describe(change)) },
                dog.observe(keyPaths: ["owner.name"]) { (change: ObjectChange<NoteDog>) in
                    harness.record("owner.name " + describe(change))
                },
            ]
        }
        try fixture.write { fixture.dog($0, 2).name = "local" }
        #expect(harness.waitForEvents(1) == ["all name:nil->local"])
        try fixture.writeFromOtherThread { realm in realm.object(ofType: NoteDog.self, forPrimaryKey: 2)!.age = 77 }
        #expect(Set(harness.waitForEvents(3).suffix(2)) == ["all age:20->77", "age age:20->77"])
        try fixture.writeFromOtherThread { realm in
            realm.object(ofType: NoteDog.self, forPrimaryKey: 2)!.owner = realm.object(ofType: NotePerson.self, forPrimaryKey: 1)
        }
        let linked = harness.waitForEvents(5).suffix(2)
        #expect(linked.contains("owner.name owner:nil->NotePerson"))
        try fixture.writeFromOtherThread { realm in realm.object(ofType: NotePerson.self, forPrimaryKey: 1)!.name = "renamed" }
        #expect(harness.waitForEvents(6).last == "owner.name owner:NotePerson->NotePerson")
        // Clearing the link reports nil itself, not an Any holding Optional.none.
        try fixture.writeFromOtherThread { realm in realm.object(ofType: NoteDog.self, forPrimaryKey: 2)!.owner = nil }
        #expect(Set(harness.waitForEvents(8).suffix(2)) == ["all owner:NotePerson->nil", "owner.name owner:NotePerson->nil"])
        #expect(harness.settledEvents().count == 8)
        harness.run { for token in tokens { token.invalidate() } }
    }

    @Test("an object observer hears a commit that lands right after it registered (30 rounds)")
    func objectObserverBaseline() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let harness = fixture.harness
        for round in 1...30 {
            let token = try harness.run {
                fixture.dog(try fixture.realm(), 2).observe(keyPaths: ["age"]) { (change: ObjectChange<NoteDog>) in
                    harness.record(describe(change))
                }
            }
            try fixture.writeFromOtherThread { realm in realm.object(ofType: NoteDog.self, forPrimaryKey: 2)!.age = 1000 + round }
            let old = round == 1 ? 20 : 999 + round
            #expect(harness.waitForEvents(round).last == "age:\(old)->\(1000 + round)")
            harness.run { token.invalidate() }
        }
        #expect(harness.settledEvents().count == 30)
    }

    @Test("a map reports keys: removed, added, and modified, including a linked object that is deleted")
    func mapChanges() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        try fixture.write { realm in
            let pets = fixture.person(realm, 2).pets
            pets["a"] = fixture.dog(realm, 3)
            pets["b"] = fixture.dog(realm, 4)
        }
        let token = try fixture.observe { realm in
            fixture.person(realm, 2).pets.observe { fixture.harness.record(describe($0)) }
        }
        try fixture.write { realm in
            let pets = fixture.person(realm, 2).pets
            pets["c"] = fixture.dog(realm, 5)
            pets.removeObject(for: "a")
        }
        #expect(fixture.harness.waitForEvents(2).last == "d[\"a\"] i[\"c\"] m[]")
        try fixture.write { realm in realm.delete(fixture.dog(realm, 4)) }
        #expect(fixture.harness.waitForEvents(3).last == "d[] i[] m[\"b\"]")
        try fixture.write { fixture.dog($0, 5).name = "changed" }
        #expect(fixture.harness.waitForEvents(4).last == "d[] i[] m[\"c\"]")
        fixture.harness.run { token.invalidate() }
    }

    @Test("a list reports replacement at a slot as a modification and a move as a deletion plus an insertion")
    func listChanges() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        try fixture.write { realm in fixture.person(realm, 1).dogs.append(objectsIn: (2..<6).map { fixture.dog(realm, $0) }) }
        let token = try fixture.observe { realm in fixture.person(realm, 1).dogs.observe { fixture.harness.record(describe($0)) } }
        try fixture.write { realm in fixture.person(realm, 1).dogs[1] = fixture.dog(realm, 0) }
        #expect(fixture.harness.waitForEvents(2).last == "d[] i[] m[1]")
        try fixture.write { realm in fixture.person(realm, 1).dogs.move(from: 3, to: 0) }
        #expect(fixture.harness.waitForEvents(3).last == "d[3] i[0] m[]")
        try fixture.write { realm in
            let dogs = fixture.person(realm, 1).dogs
            dogs.remove(at: 0)
            dogs.insert(fixture.dog(realm, 1), at: 2)
        }
        #expect(fixture.harness.waitForEvents(4).last == "d[0] i[2] m[]")
        fixture.harness.run { token.invalidate() }
    }

    @Test("linking objects report the objects that start and stop linking")
    func linkingObjects() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let token = try fixture.observe { realm in fixture.person(realm, 0).ownedDogs.observe { fixture.harness.record(describe($0)) } }
        try fixture.write { realm in fixture.dog(realm, 4).owner = fixture.person(realm, 0) }
        #expect(fixture.harness.waitForEvents(2).last == "d[] i[2] m[]")
        try fixture.write { realm in fixture.dog(realm, 0).owner = nil }
        // Dogs 1 and 4 stay; both reach dog 0 through p0.dogs, and dog 0 changed.
        #expect(fixture.harness.waitForEvents(3).last == "d[0] i[] m[1, 2]")
        fixture.harness.run { token.invalidate() }
    }

    @Test("Realm.observe on a loop thread hears commits from other threads")
    func realmObserverHearsOtherThreads() throws {
        let fixture = try NotificationFixture()
        let token = try fixture.harness.run {
            try fixture.realm().observe { notification, _ in fixture.harness.record("\(notification)") }
        }
        try fixture.writeFromOtherThread { $0.add(NoteDog(value: ["id": 1])) }
        #expect(fixture.harness.waitForEvents(1) == ["didChange"])
        fixture.harness.run { token.invalidate() }
    }

    @Test("a Realm confined to a dispatch queue delivers there")
    func dispatchQueue() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let queue = DispatchQueue(label: "notify-queue")
        let harness = fixture.harness
        let configuration = fixture.configuration
        let token = try queue.sync {
            let realm = try Realm(configuration: configuration, queue: queue)
            return UncheckedBox(realm.objects(NoteDog.self).where { $0.age > 30 }.observe { change in
                dispatchPrecondition(condition: .onQueue(queue))
                harness.record(describe(change))
            })
        }
        #expect(harness.waitForEvents(1) == ["initial"])
        try fixture.writeFromOtherThread { $0.add(NoteDog(value: ["id": 40, "age": 45])) }
        // Unsorted results keep table order: dogs 4 and 5, then the new dog.
        #expect(harness.waitForEvents(2).last == "d[] i[2] m[]")
        queue.sync { token.value.invalidate() }
    }
}
