import Foundation
@testable import Strata
import StrataTestSupport
import Synchronization
import Testing

/// A model that counts its instances' deinitializations: a `deinit` is no stored property, so its
/// accessors may be rebound, and the count shows how many accessors an iteration freed.
final class CountedDog: Object {
    static let deinitialized = Atomic<Int>(0)
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    deinit { Self.deinitialized.add(1, ordering: .relaxed) }
}

/// A list of counted dogs.
final class CountedKennel: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var dogs: List<CountedDog>
    @Persisted var dogSet: MutableSet<CountedDog>
}

/// A model with a stored property that is not persisted: its accessors carry state of their own.
final class AnnotatedDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    var note = ""
}

// Serialized: the loop tests count `CountedDog` deinitializations, which the other tests' setups
// would add to if they ran at the same time.
@Suite("Accessor recycling in iteration", .serialized)
struct AccessorRecyclingTests {
    private func realm(dogs count: Int = 10) throws -> Realm {
        let types: [ObjectBase.Type] = [NoteDog.self, NotePerson.self, NoteAddress.self, AnnotatedDog.self, CountedDog.self,
                                        CountedKennel.self]
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: types))
        try realm.write {
            for id in 1...count {
                realm.add(NoteDog(value: ["id": id, "name": "d\(id)", "age": id]))
                realm.add(AnnotatedDog(value: ["id": id, "name": "a\(id)"]))
                realm.add(CountedDog(value: ["id": id, "name": "c\(id)"]))
            }
        }
        return realm
    }

    @Test("only a reference nothing else shares is sole: another strong, a weak or an unowned reference is seen")
    func soleReference() {
        var reference: ObjectBase? = NoteDog()
        #expect(AccessorRecycler.isSoleReference(&reference))
        var other = reference
        #expect(!AccessorRecycler.isSoleReference(&reference))
        other = nil
        #expect(AccessorRecycler.isSoleReference(&reference))
        do {
            unowned let unownedReference = reference!
            #expect(!AccessorRecycler.isSoleReference(&reference))
            _ = unownedReference
        }
        #expect(AccessorRecycler.isSoleReference(&reference))
        weak let weakReference = reference
        #expect(!AccessorRecycler.isSoleReference(&reference))
        #expect(weakReference != nil && other == nil)
        var empty: ObjectBase?
        #expect(!AccessorRecycler.isSoleReference(&empty))
    }

    @Test("a loop that keeps no element reads every object through one accessor, each with its own values")
    func loopReusesOneAccessor() throws {
        let realm = try realm()
        var read: [String] = []
        var freedDuringLoop = 0
        do {
            let dogs = realm.objects(CountedDog.self).sorted(byKeyPath: "id")
            let before = CountedDog.deinitialized.load(ordering: .relaxed)
            for dog in dogs { read.append("\(dog.id) \(dog.name)") }
            freedDuringLoop = CountedDog.deinitialized.load(ordering: .relaxed) - before
        }
        #expect(read == (1...10).map { "\($0) c\($0)" })
        // One accessor for the whole loop, freed at the latest when the loop ends (an accessor per
        // element would have freed ten).
        #expect(freedDuringLoop <= 1)
        let before = CountedDog.deinitialized.load(ordering: .relaxed)
        #expect(realm.objects(CountedDog.self).map(\.id) == Array(1...10))
        // `map` walks as the loop does (looking each position up would make and free ten).
        #expect(CountedDog.deinitialized.load(ordering: .relaxed) - before <= 1)
    }

    @Test("a loop over a List or a MutableSet of objects that keeps no element reads them through one accessor")
    func listLoopReusesOneAccessor() throws {
        let realm = try realm()
        let kennel = try realm.write {
            let dogs = realm.objects(CountedDog.self).sorted(byKeyPath: "id")
            return realm.create(CountedKennel.self, value: ["id": 1, "dogs": [dogs[4], dogs[0], dogs[4], dogs[9]],
                                                            "dogSet": Array(dogs)])
        }
        var read: [String] = []
        var freed = 0
        do {
            let before = CountedDog.deinitialized.load(ordering: .relaxed)
            for dog in kennel.dogs { read.append("\(dog.id) \(dog.name)") }
            for dog in kennel.dogSet { read.append("\(dog.id)") }
            freed = CountedDog.deinitialized.load(ordering: .relaxed) - before
        }
        #expect(read == ["5 c5", "1 c1", "5 c5", "10 c10"] + kennel.dogSet.indices.map { "\(kennel.dogSet[$0].id)" })
        #expect(read.count == 14)
        // One accessor per loop (a new one per element, as looking each position up makes, would
        // have freed fourteen).
        #expect(freed <= 2)
        let before = CountedDog.deinitialized.load(ordering: .relaxed)
        #expect(kennel.dogs.map(\.id) == [5, 1, 5, 10])
        #expect(AnyRealmCollection(kennel.dogSet).map(\.id).count == 10)
        // `map` walks as the loop does (looking each position up would make and free fourteen).
        #expect(CountedDog.deinitialized.load(ordering: .relaxed) - before <= 2)
    }

    @Test("elements kept by the loop, strongly or weakly, stay the objects they were")
    func keptElementsStayTheirObjects() throws {
        let realm = try realm()
        var kept: [NoteDog] = []
        weak var weakFirst: NoteDog?
        for dog in realm.objects(NoteDog.self).sorted(byKeyPath: "id") {
            if dog.id == 1 { weakFirst = dog }
            if dog.id.isMultiple(of: 3) { kept.append(dog) }
        }
        #expect(kept.map(\.id) == [3, 6, 9] && kept.map(\.name) == ["d3", "d6", "d9"])
        #expect(Set(kept.map(ObjectIdentifier.init)).count == 3)
        // The weakly held first element was never rebound: gone, or still object 1.
        #expect(weakFirst == nil || weakFirst?.id == 1)
        #expect(Array(realm.objects(NoteDog.self)).count == 10)
    }

    @Test("writes through a rebound accessor reach the object it is bound to at the time")
    func writesReachTheCurrentObject() throws {
        let realm = try realm()
        try realm.write {
            for dog in realm.objects(NoteDog.self) { dog.age = dog.id * 100 }
        }
        #expect(realm.objects(NoteDog.self).sorted(byKeyPath: "id").map(\.age) == (1...10).map { $0 * 100 })
    }

    @Test("a class with a stored property that is not persisted gets a new accessor per element")
    func unpersistedStateIsNeverCarriedOver() throws {
        let realm = try realm()
        #expect(!ClassInfo.known(AnnotatedDog.self).accessorsAreRecyclable)
        #expect(ClassInfo.known(NoteDog.self).accessorsAreRecyclable)
        var notesSeen: [String] = []
        for dog in realm.objects(AnnotatedDog.self).sorted(byKeyPath: "id") {
            notesSeen.append(dog.note)
            dog.note = "seen \(dog.id)"
        }
        #expect(notesSeen == Array(repeating: "", count: 10))
    }

    @Test("map walks the results as a loop does: the values in order, and kept elements stay their objects")
    func mapWalksLikeALoop() throws {
        let realm = try realm()
        let dogs = realm.objects(NoteDog.self).where { $0.age > 3 }.sorted(byKeyPath: "age", ascending: false)
        #expect(dogs.map(\.name) == (4...10).reversed().map { "d\($0)" })
        let kept = dogs.map { $0 }
        #expect(kept.map(\.id) == Array((4...10).reversed()) && Set(kept.map(ObjectIdentifier.init)).count == 7)
        struct Stop: Error {}
        #expect(throws: Stop.self) { _ = try dogs.map { dog throws(Stop) -> Int in if dog.id == 5 { throw Stop() }; return dog.id } }
    }

    @Test("accessors a walk lent rows to and the loop kept read their own values once the walk moved on or ended")
    func keptAccessorsHoldTheirRows() throws {
        // 300 objects: several leaves of the table (64 rows at most each), so that the walk moves
        // from leaf to leaf while accessors it lent rows to are kept.
        let realm = try realm(dogs: 300)
        let walks: [Results<NoteDog>] = [
            realm.objects(NoteDog.self), // every object, leaf by leaf
            realm.objects(NoteDog.self).where { $0.age > 10 }, // a query's rows
            realm.objects(NoteDog.self).sorted(byKeyPath: "age", ascending: false), // in another order
        ]
        for dogs in walks {
            var kept: [NoteDog] = []
            var last: NoteDog?
            for dog in dogs {
                if dog.id.isMultiple(of: 7) { kept.append(dog) }
                if dog.id == 250 {
                    last = dog
                    break
                }
            }
            // The reader is gone: whatever the loop kept holds its row.
            #expect(kept.allSatisfy { $0.borrowedRow == nil } && last?.borrowedRow == nil)
            // Another walk reuses memory and accessors meanwhile.
            #expect(dogs.map(\.name).count == dogs.count)
            #expect(kept.allSatisfy { $0.name == "d\($0.id)" && $0.age == $0.id })
            #expect(last?.name == "d250")
        }
    }

    @Test("elements taken one by one from an iterator keep their values after the iterator is gone")
    func iteratorElementsOutliveTheIterator() throws {
        let realm = try realm(dogs: 100)
        let dogs = realm.objects(NoteDog.self)
        var iterator: RLMIterator<NoteDog>? = dogs.makeIterator()
        let first = iterator?.next()
        var copy = iterator // a copy steps the same reader
        let second = copy?.next()
        let third = iterator?.next()
        #expect([first, second, third].map { $0?.id } == [1, 2, 2])
        iterator = nil
        copy = nil
        // The reader is gone: what it lent is held by the accessors that borrowed it.
        #expect([first, second, third].allSatisfy { $0?.borrowedRow == nil })
        let all = Array(dogs)
        #expect(all.count == 100 && Set(all.map(ObjectIdentifier.init)).count == 100)
        #expect(first?.name == "d1" && second?.name == "d2" && third?.name == "d2")
        #expect(all.map(\.name) == (1...100).map { "d\($0)" })
    }

    @Test("a loop that writes as it walks reads each object's values at every change")
    func writesDuringTheWalk() throws {
        let realm = try realm(dogs: 200)
        let anchor = realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!
        var read: [String] = []
        try realm.write {
            for dog in realm.objects(NoteDog.self) {
                read.append(dog.name)
                // Another object changes: the walk's rows are no longer the Realm's.
                anchor.age += 1
                read.append("\(dog.name) \(dog.age)")
                if dog.id.isMultiple(of: 2) { dog.name = "even \(dog.id)" }
                read.append(dog.name)
            }
        }
        let expected = (1...200).flatMap { id -> [String] in
            let name = "d\(id)"
            // Object 1's age is its id until the first increment, made before its own read.
            let age = id == 1 ? 2 : id
            return [name, "\(name) \(age)", id.isMultiple(of: 2) ? "even \(id)" : name]
        }
        #expect(read == expected)
        #expect(anchor.age == 201)
        #expect(realm.objects(NoteDog.self).filter { $0.name.hasPrefix("even") }.count == 100)
    }
}
