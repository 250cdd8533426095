import Foundation
import Strata
import Testing

@Suite("A collection taken from an unmanaged object becomes the managed collection when the object is added")
struct UnmanagedCollectionAddTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "collection-add-\(UUID())",
                                                     objectTypes: [SeqOwner.self, SeqDog.self]))
    }

    @Test("a List, a MutableSet and a Map taken before add read and write the Realm after it")
    func collectionsBecomeManaged() throws {
        let realm = try realm()
        let owner = SeqOwner(value: ["id": 1, "numbers": [1, 2], "tags": ["a"], "scores": ["x": 1]])
        let numbers = owner.numbers, tags = owner.tags, scores = owner.scores, dogs = owner.dogs
        dogs.append(SeqDog(value: ["name": "Rex"]))
        #expect(numbers.realm == nil)
        try realm.write {
            realm.add(owner)
            numbers.append(3)
            tags.insert("b")
            scores["y"] = 2
            dogs.append(SeqDog(value: ["name": "Fido"]))
        }
        #expect(numbers.realm != nil && tags.realm != nil && scores.realm != nil && dogs.realm != nil)
        #expect(Array(owner.numbers) == [1, 2, 3] && Array(numbers) == [1, 2, 3])
        #expect(Set(owner.tags) == ["a", "b"] && owner.scores["y"] == 2 && scores.count == 2)
        #expect(owner.dogs.map(\.name) == ["Rex", "Fido"] && realm.objects(SeqDog.self).count == 2)
        #expect(numbers == owner.numbers, "the old reference is an accessor of the managed property")
    }

    @Test("a managed object's collection property returns the same collection on each read, the one add adopted")
    func collectionIdentity() throws {
        let realm = try realm()
        let owner = SeqOwner(value: ["id": 1, "numbers": [1, 2]])
        let numbers = owner.numbers, tags = owner.tags, scores = owner.scores
        #expect(numbers === owner.numbers && tags === owner.tags && scores === owner.scores)
        try realm.write { realm.add(owner) }
        #expect(numbers === owner.numbers && tags === owner.tags && scores === owner.scores)
        // An accessor found by a query keeps the collection it returned first.
        let found = try #require(realm.object(ofType: SeqOwner.self, forPrimaryKey: 1))
        let list = found.numbers
        #expect(list === found.numbers && found.dogs === found.dogs)
        try realm.write { found.numbers.append(3) }
        #expect(list === found.numbers && Array(list) == [1, 2, 3])
        // Another object's accessor, and accessors reused while iterating, never show it.
        try realm.write { realm.create(SeqOwner.self, value: ["id": 2, "numbers": [7]]) }
        let seen = realm.objects(SeqOwner.self).sorted(byKeyPath: "id").map { Array($0.numbers) }
        #expect(seen == [[1, 2, 3], [7]])
        // After invalidate(), the object is invalidated as before.
        realm.invalidate()
        #expect(found.isInvalidated)
    }

    @Test("a frozen object's collections are read by several threads at once without a race")
    func frozenCollectionsReadConcurrently() throws {
        let realm = try realm()
        try realm.write { realm.create(SeqOwner.self, value: ["id": 1, "numbers": [1, 2, 3]]) }
        let frozen = Frozen(try #require(realm.object(ofType: SeqOwner.self, forPrimaryKey: 1)))
        let sums = LockedSums()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 { sums.add(frozen.value.numbers.reduce(0, +)) }
        }
        #expect(sums.total == 8 * 200 * 6)
    }

    @Test("add(_:update:) over an existing object makes the collections the managed ones too")
    func updateMakesCollectionsManaged() throws {
        let realm = try realm()
        try realm.write { realm.create(SeqOwner.self, value: ["id": 1, "numbers": [9]]) }
        let owner = SeqOwner(value: ["id": 1, "numbers": [1]])
        let numbers = owner.numbers
        try realm.write {
            realm.add(owner, update: .modified)
            numbers.append(2)
        }
        #expect(Array(realm.object(ofType: SeqOwner.self, forPrimaryKey: 1)?.numbers ?? List()) == [1, 2])
    }
}

/// A sum several threads add to.
private final class LockedSums: @unchecked Sendable {
    // Safety: `sum` is only touched under `lock`.
    private var sum = 0
    private let lock = NSLock()
    func add(_ value: Int) {
        lock.lock()
        sum += value
        lock.unlock()
    }
    var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return sum
    }
}
