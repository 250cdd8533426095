import Foundation
import Strata
import Testing

/// A JSON document as a real app receives it: every scalar type, nulls, nested objects and
/// arrays, and keys the model does not have.
private let peopleJSON = """
[
  {"id": 1, "name": "Ada", "age": 36, "age8": 8, "age16": 16, "age32": 32, "age64": 9007199254740993,
   "height": 1.65, "weight": 58.5, "active": true, "balance": 12.75, "nickname": null, "score": 7,
   "rating": 4, "verified": false, "born": null, "scores": [1, 2, 3], "tags": ["math", "engines"],
   "ratings": {"logic": 4.5, "poetry": 3}, "extra": 2.5,
   "address": {"street": "St James's Square", "city": "London", "zip": null, "country": "UK"},
   "pet": {"name": "Rex", "age": 3, "weight": 12.5, "price": 99.99},
   "pets": [{"name": "Fido", "age": 3, "weight": 12.5}, {"name": "Tom", "age": 1, "weight": 4}],
   "unknownKey": "ignored", "_links": {"self": "/people/1"}},
  {"id": 2, "name": "Grace", "age": 85, "height": 1.7, "weight": 60, "active": false, "extra": true,
   "nickname": "Amazing", "rating": null, "scores": [], "pets": []}
]
"""

@Suite("Value input as Realm reads it (Object(value:), create(_:value:update:))")
struct ValueInputTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "value-input-\(UUID())",
                                                     objectTypes: [InputPerson.self, InputAddress.self, InputPet.self]))
    }

    private func parsed() throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(peopleJSON.utf8)) as? [[String: Any]])
    }

    @Test("a JSON document parsed by JSONSerialization creates objects of every property type, ignoring unknown keys")
    func jsonDocumentCreatesObjects() throws {
        let realm = try realm()
        let people = try parsed()
        try realm.write {
            for person in people { realm.create(InputPerson.self, value: person) }
        }
        let ada = try #require(realm.object(ofType: InputPerson.self, forPrimaryKey: 1))
        #expect(ada.name == "Ada")
        #expect(ada.age == 36 && ada.age8 == 8 && ada.age16 == 16 && ada.age32 == 32)
        #expect(ada.age64 == 9_007_199_254_740_993)
        #expect(ada.height == 1.65)
        #expect(ada.weight == 58.5)
        #expect(ada.active == true)
        #expect(ada.balance == Decimal128(12.75))
        #expect(ada.nickname == nil && ada.score == 7 && ada.rating == 4 && ada.verified == false && ada.born == nil)
        #expect(Array(ada.scores) == [1, 2, 3])
        #expect(Set(ada.tags) == ["math", "engines"])
        #expect(ada.ratings["logic"] == 4.5 && ada.ratings["poetry"] == 3)
        #expect(ada.extra == .double(2.5))
        #expect(ada.address?.street == "St James's Square" && ada.address?.city == "London" && ada.address?.zip == nil)
        #expect(ada.pet?.name == "Rex" && ada.pet?.weight == 12.5 && ada.pet?.price == Decimal128(99.99))
        #expect(ada.pets.map(\.name) == ["Fido", "Tom"])
        #expect(realm.objects(InputPet.self).count == 3)

        let grace = try #require(realm.object(ofType: InputPerson.self, forPrimaryKey: 2))
        #expect(grace.extra == .bool(true))
        #expect(grace.nickname == "Amazing" && grace.rating == nil && grace.weight == 60)
    }

    @Test("Object(value:) reads a JSONSerialization dictionary by property name, ignoring keys that are not properties")
    func objectValueFromJSONDictionary() throws {
        let person = InputPerson(value: try parsed()[0])
        #expect(person.realm == nil)
        #expect(person.name == "Ada" && person.height == 1.65 && person.active)
        #expect(person.address?.city == "London")
        #expect(Array(person.scores) == [1, 2, 3])
        let pet = InputPet(value: ["name": "Rex", "color": "brown", "weight": NSNumber(value: 2.5)])
        #expect(pet.name == "Rex" && pet.weight == 2.5)
    }

    @Test("an array is read in property order; fewer values leave the rest at their defaults")
    func arrayInPropertyOrder() throws {
        let pet = InputPet(value: ["Rex", 3, 12.5])
        #expect(pet.name == "Rex" && pet.age == 3 && pet.weight == 12.5 && pet.born == nil)
        let realm = try realm()
        try realm.write { realm.create(InputPet.self, value: ["Tom", NSNumber(value: 1)] as [Any]) }
        #expect(realm.object(ofType: InputPet.self, forPrimaryKey: "Tom")?.age == 1)
    }

    @Test("NSNumber, NSString, NSArray, NSDictionary and NSNull are accepted for every type they can represent")
    func foundationValues() throws {
        let realm = try realm()
        let value: [String: Any] = [
            "id": NSNumber(value: 3), "name": NSString(string: "Linus"), "age": NSNumber(value: Int32(5)),
            "age8": NSNumber(value: 1), "height": NSNumber(value: 2), "weight": NSNumber(value: 1.5),
            "active": NSNumber(value: true), "verified": NSNumber(value: 1), "balance": NSNumber(value: 3),
            "nickname": NSNull(), "rating": NSNumber(value: Float(0.5)), "scores": NSArray(array: [NSNumber(value: 4)]),
            "address": NSDictionary(dictionary: ["city": NSString(string: "Oslo")]), "extra": NSNumber(value: 7),
        ]
        try realm.write { realm.create(InputPerson.self, value: value) }
        let linus = try #require(realm.object(ofType: InputPerson.self, forPrimaryKey: 3))
        #expect(linus.name == "Linus" && linus.age == 5 && linus.age8 == 1 && linus.height == 2 && linus.weight == 1.5)
        #expect(linus.active && linus.verified == true && linus.balance == Decimal128(3) && linus.nickname == nil)
        #expect(linus.rating == 0.5 && Array(linus.scores) == [4] && linus.address?.city == "Oslo")
        #expect(linus.extra == .int(7))
    }

    @Test("nil and NSNull, also wrapped in an optional, are no link and an empty List, MutableSet or Map, as in Realm")
    func absentValues() throws {
        let realm = try realm()
        let wrappedNull: Any? = NSNull()
        let none: Any? = nil
        let value: [String: Any] = [
            "id": 4, "name": "Ada", "address": wrappedNull as Any, "scores": NSNull(),
            "tags": none as Any, "ratings": NSNull(),
        ]
        try realm.write { realm.create(InputPerson.self, value: value) }
        let ada = try #require(realm.object(ofType: InputPerson.self, forPrimaryKey: 4))
        #expect(ada.address == nil && ada.scores.isEmpty && ada.tags.isEmpty && ada.ratings.isEmpty)
        let unmanaged = InputPerson(value: ["id": 5, "scores": wrappedNull as Any, "address": none as Any])
        #expect(unmanaged.scores.isEmpty && unmanaged.address == nil)
    }

    @Test("a JSON number of the wrong type makes create(_:value:) throw invalidInput with Realm's message")
    func wrongTypeThrowsInvalidInput() throws {
        let realm = try realm()
        let json = try JSONSerialization.jsonObject(with: Data(#"{"id": 9, "age": 2.5}"#.utf8))
        do {
            try realm.write { realm.create(InputPerson.self, value: json) }
            Issue.record("create with 2.5 for an int property did not fail")
        } catch let error as Realm.Error {
            #expect(error.code == Realm.Error.invalidInput)
            #expect(error.message.hasPrefix("Invalid value '2.5' of type "))
            #expect(error.message.hasSuffix(" for 'int' property 'InputPerson.age'."))
        }
        #expect(realm.objects(InputPerson.self).isEmpty)
        for bad: [String: Any] in [["id": 9, "name": 5], ["id": 9, "born": 1_700_000_000], ["id": 9, "active": 2],
                                   ["id": 9, "height": true], ["id": 9, "age8": 300], ["id": 9, "name": NSNull()],
                                   ["id": 9, "scores": ["x"]], ["id": 9, "address": 3]] {
            #expect(throws: Realm.Error.self, "\(bad)") {
                try realm.write { realm.create(InputPerson.self, value: bad) }
            }
        }
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(InputPet.self, value: ["a", 1, 2.0, NSNull(), NSNull(), "too many"]) }
        }
        do {
            try realm.write {
                realm.create(InputPerson.self, value: ["id": 9, "pets": [["name": "Rex"], ["name": "Tom", "age": "3"]]])
            }
            Issue.record("create with a string for a nested int property did not fail")
        } catch let error as Realm.Error {
            #expect(error.message.hasPrefix("Invalid value '3' of type "))
            #expect(error.message.hasSuffix(" for 'int' property 'InputPet.age'."))
        }
    }

    @Test("Object(value:) with a value of the wrong type traps with Realm's message, not a failed cast")
    func objectValueWrongTypeTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = InputPet(value: ["name": "Rex", "age": "three"])
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let message = "Invalid value 'three' of type 'String' for 'int' property 'InputPet.age'."
        #expect(stderr.contains(message), "\(stderr)")
    }

    @Test("create(_:value:update: .modified) with a dictionary updates only the keys given")
    func modifiedUpdatesOnlyGivenKeys() throws {
        let realm = try realm()
        try realm.write {
            realm.create(InputPerson.self, value: try parsed()[0])
        }
        try realm.write {
            realm.create(InputPerson.self, value: ["id": 1, "age": 37, "ignored": 1], update: .modified)
        }
        let ada = try #require(realm.object(ofType: InputPerson.self, forPrimaryKey: 1))
        #expect(ada.age == 37 && ada.name == "Ada" && ada.height == 1.65 && ada.pets.count == 2)
    }

    @Test("create(_:value:update: .modified) updates only the given keys of nested linked and embedded objects")
    func modifiedUpdatesNestedGivenKeys() throws {
        let realm = try realm()
        try realm.write {
            realm.create(InputPerson.self, value: try parsed()[0])
        }
        let ada = try #require(realm.object(ofType: InputPerson.self, forPrimaryKey: 1))
        let address = try #require(ada.address)
        try realm.write {
            realm.create(InputPerson.self, value: [
                "id": 1, "address": ["zip": 12345], "pet": ["name": "Rex", "age": 4],
            ] as [String: Any], update: .modified)
        }
        #expect(ada.address?.zip == 12345)
        #expect(ada.address?.street == "St James's Square" && ada.address?.city == "London")
        #expect(address.isInvalidated == false && address.zip == 12345)
        let rex = try #require(realm.object(ofType: InputPet.self, forPrimaryKey: "Rex"))
        #expect(rex.age == 4 && rex.weight == 12.5 && rex.price == Decimal128(99.99))
        #expect(ada.name == "Ada" && ada.pets.count == 2)
    }

    @Test("create copies the unmanaged objects among its values and leaves them unmanaged, as Realm does")
    func createCopiesUnmanagedObjects() throws {
        let realm = try realm()
        let rex = InputPet(value: ["name": "Rex", "age": 3])
        let address = InputAddress(value: ["city": "Paris"])
        let person = try realm.write {
            realm.create(InputPerson.self, value: ["id": 1, "pet": rex, "pets": [rex], "address": address] as [String: Any])
        }
        #expect(rex.realm == nil && address.realm == nil, "the values stay unmanaged")
        #expect(person.pet?.age == 3 && person.pets.first?.name == "Rex" && person.address?.city == "Paris")
        #expect(realm.objects(InputPet.self).count == 1, "one copy for an object given twice")
        // A cycle of unmanaged objects given to create is copied once around.
        let first = KeyPathNode(value: ["name": "a"])
        let second = KeyPathNode(value: ["name": "b", "next": first])
        first.next = second
        let cycleRealm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "copy-cycle-\(UUID())",
                                                                      objectTypes: [KeyPathNode.self]))
        let made = try cycleRealm.write { cycleRealm.create(KeyPathNode.self, value: first) }
        #expect(first.realm == nil && second.realm == nil)
        #expect(cycleRealm.objects(KeyPathNode.self).count == 2)
        #expect(made.next?.next?.name == "a" && made.next?.next?.isSameObject(as: made) == true)
    }

    @Test("create made through a base class's metatype makes the dynamic type")
    func createUsesDynamicType() throws {
        let realm = try realm()
        let type: Object.Type = InputPet.self
        let made = try realm.write { realm.create(type, value: ["name": "Rex"]) }
        #expect(made is InputPet && made.objectSchema.className == "InputPet")
    }
}
