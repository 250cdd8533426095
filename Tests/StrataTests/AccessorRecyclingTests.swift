import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// A model with a stored property that is not persisted: its accessors carry state of their own.
final class AnnotatedDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    var note = ""
}

@Suite("Accessor recycling in iteration")
struct AccessorRecyclingTests {
    private func realm(dogs count: Int = 10) throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: UUID().uuidString, objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self, AnnotatedDog.self]))
        try realm.write {
            for id in 1...count {
                realm.add(NoteDog(value: ["id": id, "name": "d\(id)", "age": id]))
                realm.add(AnnotatedDog(value: ["id": id, "name": "a\(id)"]))
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
        var identities = Set<ObjectIdentifier>()
        var read: [String] = []
        for dog in realm.objects(NoteDog.self).sorted(byKeyPath: "id") {
            identities.insert(ObjectIdentifier(dog))
            read.append("\(dog.id) \(dog.name) \(dog.age)")
        }
        #expect(read == (1...10).map { "\($0) d\($0) \($0)" })
        #expect(identities.count == 1)
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
}
