import Foundation
@testable import Strata
import Testing

@Suite("Frozen snapshots")
struct FrozenTests {
    private func realm(_ name: String = UUID().uuidString, maximumVersions: UInt? = nil) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: name,
                                                objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self])
        configuration.maximumNumberOfActiveVersions = maximumVersions
        return try Realm(configuration: configuration)
    }

    private func seed(_ realm: Realm) throws {
        try realm.write {
            let owner = realm.create(NotePerson.self, value: ["id": 1, "name": "Ada"])
            for id in 0..<5 {
                let dog = realm.create(NoteDog.self, value: ["id": id, "name": "d\(id)", "age": id * 10])
                owner.dogs.append(dog)
                owner.pets["p\(id)"] = dog
                dog.owner = owner
            }
        }
    }

    @Test("frozen objects and collections keep their values after commits; live ones move on")
    func frozenValuesNeverChange() throws {
        let realm = try realm()
        try seed(realm)
        let person = realm.object(ofType: NotePerson.self, forPrimaryKey: 1)!
        let frozenPerson = person.freeze()
        let frozenResults = realm.objects(NoteDog.self).where { $0.age >= 20 }.freeze()
        let frozenList = person.dogs.freeze()
        let frozenMap = person.pets.freeze()
        let frozenOwned = person.ownedDogs.freeze()
        let frozenAny = AnyRealmCollection(realm.objects(NoteDog.self)).freeze()
        try realm.write {
            person.name = "Grace"
            person.dogs.removeAll()
            person.pets.removeAll()
            realm.delete(realm.objects(NoteDog.self).where { $0.age >= 30 })
        }
        #expect(person.name == "Grace" && person.dogs.isEmpty)
        #expect(frozenPerson.isFrozen && frozenPerson.realm!.isFrozen && !person.isFrozen)
        #expect(frozenPerson.name == "Ada")
        #expect(frozenResults.isFrozen && frozenResults.map(\.age) == [20, 30, 40])
        #expect(frozenResults.where { $0.age > 25 }.isFrozen)
        #expect(frozenResults.where { $0.age > 25 }.count == 2)
        #expect(frozenList.map(\.id) == [0, 1, 2, 3, 4])
        #expect(frozenMap.count == 5 && frozenMap["p4"]??.name == "d4")
        #expect(frozenOwned.count == 5)
        #expect(frozenAny.count == 5 && frozenAny.isFrozen)
        #expect(frozenList[3].owner?.name == "Ada")
        #expect(realm.freeze().objects(NoteDog.self).count == 3)
    }

    @Test("thaw gives the live value at this thread's version, or nil once deleted")
    func thaw() throws {
        let realm = try realm()
        try seed(realm)
        let frozenDog = realm.object(ofType: NoteDog.self, forPrimaryKey: 2)!.freeze()
        let frozenDogs = realm.objects(NoteDog.self).freeze()
        try realm.write { realm.object(ofType: NoteDog.self, forPrimaryKey: 2)!.age = 99 }
        #expect(frozenDog.age == 20)
        let live = try #require(frozenDog.thaw())
        #expect(!live.isFrozen && live.age == 99)
        #expect(frozenDogs.thaw()?.isFrozen == false)
        #expect(frozenDog.realm!.thaw().isFrozen == false)
        try realm.write { realm.delete(live) }
        #expect(frozenDog.thaw() == nil)
        #expect(frozenDog.age == 20)
    }

    @Test("frozen accessors of one object at one version are equal, also without a primary key, as Realm's")
    func frozenEquality() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "frozen-equal-\(UUID())",
                                                                 objectTypes: [KeyPathNode.self]))
        let node = try realm.write { realm.create(KeyPathNode.self, value: ["name": "a"]) }
        let frozen = node.freeze()
        let again = try #require(realm.objects(KeyPathNode.self).first).freeze()
        #expect(frozen == again && frozen.hashValue == again.hashValue)
        #expect(node != realm.objects(KeyPathNode.self).first, "live accessors without a primary key differ")
        try realm.write { node.name = "b" }
        #expect(frozen != node.freeze(), "another version is another frozen object")
    }

    @Test("frozen values are read from 8 threads at once while a writer commits, and never change")
    func concurrentFrozenReads() throws {
        let name = UUID().uuidString
        let realm = try realm(name)
        try seed(realm)
        let frozenRealm = realm.freeze()
        let frozenDogs = Frozen(frozenRealm.objects(NoteDog.self).sorted(byKeyPath: "age"))
        let frozenPerson = Frozen(realm.object(ofType: NotePerson.self, forPrimaryKey: 1)!)
        let configuration = realm.configuration
        let stop = LockedCounter()
        let writer = Thread {
            let realm = try! Realm(configuration: configuration)
            var n = 0
            while stop.value == 0 {
                try! realm.write {
                    realm.object(ofType: NoteDog.self, forPrimaryKey: n % 5)!.age += 1
                    realm.object(ofType: NotePerson.self, forPrimaryKey: 1)!.name = "n\(n)"
                    realm.add(NoteDog(value: ["id": 1000 + n]))
                }
                n += 1
            }
        }
        writer.start()
        let failures = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 {
                let ages = frozenDogs.value.map(\.age)
                if ages != [0, 10, 20, 30, 40] { failures.increment() }
                if frozenPerson.value.name != "Ada" || frozenPerson.value.dogs.count != 5 { failures.increment() }
                if frozenDogs.value.where({ $0.age > 15 }).count != 3 { failures.increment() }
            }
        }
        stop.increment()
        #expect(failures.value == 0)
    }

    @Test("frozen versions count against maximumNumberOfActiveVersions until released")
    func versionPinning() throws {
        let realm = try realm(maximumVersions: 2)
        try seed(realm)
        var frozen: [Realm] = [realm.freeze()]
        try realm.write { realm.add(NoteDog(value: ["id": 100])) }
        frozen.append(realm.freeze())
        // The live Realm and two frozen versions: a write now needs a third active version.
        try realm.write { realm.add(NoteDog(value: ["id": 101])) }
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(NoteDog(value: ["id": 102])) }
        }
        frozen.removeAll()
        try realm.write { realm.add(NoteDog(value: ["id": 103])) }
        #expect(realm.objects(NoteDog.self).count == 8)
    }

    @Test("writing, observing or freezing what cannot be trap with Realm's messages")
    func misuseTraps() async {
        await #expect(processExitsWith: .failure) {
            let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "frozen-write", objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
            try? realm.freeze().write {}
        }
        await #expect(processExitsWith: .failure) {
            let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "frozen-set", objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
            try! realm.write { realm.add(NoteDog(value: ["id": 1])) }
            let frozen = realm.objects(NoteDog.self).first!.freeze()
            try! realm.write { frozen.name = "x" }
        }
        await #expect(processExitsWith: .failure) {
            let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "frozen-observe", objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
            _ = realm.freeze().objects(NoteDog.self).observe { _ in }
        }
        await #expect(processExitsWith: .failure) {
            _ = NoteDog().freeze()
        }
        let thawed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = NoteDog().thaw()
        }
        let message = String(decoding: thawed?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Unmanaged objects cannot be thawed."))
        await #expect(processExitsWith: .failure) {
            let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "frozen-new", objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
            try! realm.write {
                let dog = NoteDog()
                realm.add(dog)
                _ = dog.freeze()
            }
        }
    }
}

/// A counter several threads increment.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
