import Foundation
import Strata
import Testing

@Suite("A Realm collection given as the value of a to-many property")
struct SequenceInputTests {
    /// A Realm with three dogs and an owner (id 1) of the first two.
    private func realmWithDogs() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "sequence-input-\(UUID())",
                                                                 objectTypes: [SeqOwner.self, SeqDog.self]))
        try realm.write {
            let dogs = ["Rex", "Fido", "Tom"].map { realm.create(SeqDog.self, value: ["name": $0]) }
            realm.create(SeqOwner.self, value: ["id": 1, "dogs": Array(dogs.prefix(2)), "numbers": [1, 2, 3],
                                                "tags": ["a", "b"]])
        }
        return realm
    }

    private func names(_ dogs: some Sequence<SeqDog>) -> [String] { dogs.map(\.name).sorted() }

    @Test("create(_:value:) enumerates a Results, a List, a MutableSet, LinkingObjects and an AnyRealmCollection")
    func createEnumeratesCollections() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(SeqDog.self)
        let first = try #require(realm.object(ofType: SeqOwner.self, forPrimaryKey: 1))
        let unmanaged = List<SeqDog>()
        unmanaged.append(dogs[2])
        try realm.write {
            realm.create(SeqOwner.self, value: ["id": 2, "dogs": dogs, "dogSet": first.dogs, "numbers": first.numbers,
                                                "tags": first.tags])
            realm.create(SeqOwner.self, value: ["id": 3, "dogs": AnyRealmCollection(dogs), "dogSet": unmanaged,
                                                "friends": dogs[0].owners])
        }
        let second = try #require(realm.object(ofType: SeqOwner.self, forPrimaryKey: 2))
        #expect(second.dogs.map(\.name) == ["Rex", "Fido", "Tom"])
        #expect(names(second.dogSet) == ["Fido", "Rex"])
        #expect(Array(second.numbers) == [1, 2, 3] && Set(second.tags) == ["a", "b"])
        let third = try #require(realm.object(ofType: SeqOwner.self, forPrimaryKey: 3))
        #expect(third.dogs.count == 3 && names(third.dogSet) == ["Tom"])
        #expect(third.friends.map(\.id) == [1, 2])
        #expect(realm.objects(SeqDog.self).count == 3, "the elements are linked, not copied")
    }

    @Test("Object(value:), the subscript and setValue(_:forKey:) take a collection, managed or not")
    func dynamicSettersTakeCollections() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(SeqDog.self)
        let first = try #require(realm.object(ofType: SeqOwner.self, forPrimaryKey: 1))
        let unmanaged = SeqOwner(value: ["id": 5, "dogs": dogs, "numbers": first.numbers])
        #expect(unmanaged.dogs.count == 3 && Array(unmanaged.numbers) == [1, 2, 3])
        unmanaged["dogSet"] = first.dogs
        unmanaged.setValue(unmanaged.numbers, forKey: "numbers")
        #expect(names(unmanaged.dogSet) == ["Fido", "Rex"] && Array(unmanaged.numbers) == [1, 2, 3])
        try realm.write {
            first["dogs"] = dogs.filter("name != 'Fido'")
            first["dogSet"] = first.dogs
            first.setValue(first.dogs, forKey: "dogs")
            first["friends"] = dogs[0].owners
            first["tags"] = unmanaged.numbers.map(String.init)
        }
        #expect(first.dogs.map(\.name) == ["Rex", "Tom"], "a list assigned to itself keeps its elements")
        #expect(names(first.dogSet) == ["Rex", "Tom"] && first.friends.map(\.id) == [1])
        #expect(Set(first.tags) == ["1", "2", "3"])
    }

    @Test("a value that is not a sequence of the property's elements still fails with Realm's invalid value error")
    func wrongSequenceFails() throws {
        let realm = try realmWithDogs()
        let owners = realm.objects(SeqOwner.self)
        for bad: [String: Any] in [["id": 7, "numbers": "123"], ["id": 7, "numbers": owners],
                                   ["id": 7, "tags": owners[0].numbers], ["id": 7, "dogs": 3]] {
            do {
                try realm.write { realm.create(SeqOwner.self, value: bad) }
                Issue.record("create with \(bad) did not fail")
            } catch let error as Realm.Error {
                #expect(error.code == Realm.Error.invalidInput)
                #expect(error.message.hasPrefix("Invalid value "), "\(error.message)")
            }
        }
        #expect(realm.object(ofType: SeqOwner.self, forPrimaryKey: 7) == nil)
    }
}
