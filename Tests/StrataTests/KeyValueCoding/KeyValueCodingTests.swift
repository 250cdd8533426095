import Foundation
import Strata
import Testing

@Suite("Key-value coding as in Realm Swift")
struct KeyValueCodingTests {
    private func realm() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: "kvc-\(UUID())", objectTypes: [InputPerson.self, InputAddress.self, InputPet.self]))
        try realm.write {
            realm.create(InputPerson.self, value: [
                "id": 1, "name": "Ada", "scores": [3, 1, 2],
                "pets": [["name": "Rex", "age": 3, "weight": 12.5, "price": "10.5"],
                         ["name": "Tom", "age": 1, "weight": 4.0],
                         ["name": "Kit", "age": 5, "weight": 2.5, "born": Date(timeIntervalSince1970: 10)]],
            ] as [String: Any])
        }
        return realm
    }

    private func ada(_ realm: Realm) throws -> InputPerson {
        try #require(realm.object(ofType: InputPerson.self, forPrimaryKey: 1))
    }

    @Test("Object.value(forKey:) reads a property by name, nil for an optional holding nil")
    func objectValueForKey() throws {
        let ada = try ada(try realm())
        #expect(ada.value(forKey: "name") as? String == "Ada")
        #expect(ada.value(forKey: "nickname") == nil)
        #expect((ada.value(forKey: "pet")) == nil)
        #expect((ada.value(forKey: "pets") as? List<InputPet>)?.count == 3)
        let unmanaged = InputPet(value: ["name": "Rex", "age": 2])
        #expect(unmanaged.value(forKey: "age") as? Int == 2)
        #expect(unmanaged.value(forKey: "born") == nil)
    }

    @Test("Object.setValue(_:forKeyPath:) follows links and sets the last property, as NSObject's")
    func objectSetValueForKeyPath() throws {
        let realm = try realm()
        let ada = try ada(realm)
        try realm.write {
            ada.address = InputAddress(value: ["city": "London"])
            ada.setValue("Paris", forKeyPath: "address.city")
            ada.setValue("Augusta", forKeyPath: "name")
        }
        #expect(ada.address?.city == "Paris" && ada.name == "Augusta")
        let unmanaged = InputPerson(value: ["id": 2, "address": ["city": "Oslo"]])
        unmanaged.setValue("Bergen", forKeyPath: "address.city")
        #expect(unmanaged.address?.city == "Bergen")
    }

    @Test("Object.value(forKey:) with a name that is not a property traps, as Realm raises")
    func objectValueForUnknownKeyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = InputPet().value(forKey: "color")
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Invalid property name 'color' for class 'InputPet'."), "\(stderr)")
    }

    @Test("Object.setValue(_:forKey:) writes a property by name, converting NSNumber; nil clears an optional")
    func objectSetValueForKey() throws {
        let realm = try realm()
        let ada = try ada(realm)
        try realm.write {
            ada.setValue(NSNumber(value: 1.75), forKey: "height")
            ada.setValue("Countess", forKey: "nickname")
            ada.setValue(["street": "Main", "city": "Oslo"], forKey: "address")
        }
        #expect(ada.height == 1.75 && ada.nickname == "Countess" && ada.address?.city == "Oslo")
        try realm.write { ada.setValue(nil, forKey: "nickname") }
        #expect(ada.nickname == nil)
        let pet = InputPet()
        pet.setValue(4, forKey: "age")
        #expect(pet.age == 4)
    }

    @Test("Object.setValuesForKeys(_:) writes several properties by name")
    func objectSetValuesForKeys() throws {
        let realm = try realm()
        let ada = try ada(realm)
        try realm.write { ada.setValuesForKeys(["age": 36, "active": true, "scores": [9]]) }
        #expect(ada.age == 36 && ada.active && Array(ada.scores) == [9])
    }

    @Test("value(forKey:) on Results, List, MutableSet and LinkingObjects returns each element's value")
    func collectionValueForKey() throws {
        let realm = try realm()
        let ada = try ada(realm)
        #expect(realm.objects(InputPet.self).sorted(byKeyPath: "name").value(forKey: "name") as? [String]
                == ["Kit", "Rex", "Tom"])
        #expect(ada.pets.value(forKey: "age") as? [Int] == [3, 1, 5])
        let owners = try #require(realm.object(ofType: InputPet.self, forPrimaryKey: "Rex")).owners
        #expect(owners.value(forKey: "name") as? [String] == ["Ada"])
        let born = try #require(ada.pets.value(forKey: "born") as? [Any])
        #expect(born[0] is NSNull && born[2] as? Date == Date(timeIntervalSince1970: 10))
        try realm.write { ada.tags.insert(objectsIn: ["x"]) }
        #expect(ada.tags.value(forKey: "self") as? [String] == ["x"])
        #expect(ada.scores.value(forKeyPath: "self") as? [Int] == [3, 1, 2])
    }

    @Test("value(forKeyPath:) follows dotted paths and computes @count, @sum, @avg, @min and @max")
    func collectionValueForKeyPath() throws {
        let realm = try realm()
        let ada = try ada(realm)
        let pets = realm.objects(InputPet.self)
        #expect(pets.value(forKeyPath: "@count") as? Int == 3)
        #expect(pets.value(forKeyPath: "@sum.age") as? Int == 9)
        #expect(pets.value(forKeyPath: "@sum.weight") as? Double == 19)
        #expect(pets.value(forKeyPath: "@avg.age") as? Double == 3)
        #expect(pets.value(forKeyPath: "@min.age") as? Int == 1)
        #expect(pets.value(forKeyPath: "@max.weight") as? Double == 12.5)
        #expect(pets.value(forKeyPath: "@max.born") as? Date == Date(timeIntervalSince1970: 10))
        #expect(pets.value(forKeyPath: "@sum.price") as? Decimal128 == Decimal128(10.5))
        #expect(pets.filter("age > 10").value(forKeyPath: "@avg.age") == nil)
        #expect(pets.filter("age > 10").value(forKeyPath: "@sum.age") as? Int == 0)
        #expect(ada.pets.value(forKeyPath: "@max.age") as? Int == 5)
        #expect(ada.scores.value(forKeyPath: "@sum.self") as? Int == 6)
        #expect(ada.scores.value(forKeyPath: "@min.self") as? Int == 1)
        let owners = try #require(pets.first).owners
        #expect(owners.value(forKeyPath: "@count") as? Int == 1)
        #expect(ada.pets.value(forKeyPath: "name") as? [String] == ["Rex", "Tom", "Kit"])
        try realm.write { ada.address = InputAddress(value: ["city": "London"]) }
        #expect(ada.value(forKeyPath: "address.city") as? String == "London")
        #expect(ada.value(forKeyPath: "pet.name") == nil)
        #expect(realm.objects(InputPerson.self).value(forKeyPath: "address.city") as? [String] == ["London"])
    }

    @Test("value(forKeyPath:) gathers values with @unionOfObjects, @distinctUnionOfObjects and @unionOfArrays")
    func collectionUnionOperators() throws {
        let realm = try realm()
        let ada = try ada(realm)
        try realm.write {
            realm.create(InputPerson.self, value: ["id": 2, "name": "Ada", "scores": [2, 9]] as [String: Any])
        }
        let people = realm.objects(InputPerson.self)
        #expect(ada.pets.value(forKeyPath: "@unionOfObjects.name") as? [String] == ["Rex", "Tom", "Kit"])
        #expect(people.value(forKeyPath: "@unionOfObjects.name") as? [String] == ["Ada", "Ada"])
        #expect(people.value(forKeyPath: "@distinctUnionOfObjects.name") as? [String] == ["Ada"])
        #expect(ada.pets.value(forKeyPath: "@unionOfObjects.born") as? [Date] == [Date(timeIntervalSince1970: 10)])
        #expect(people.value(forKeyPath: "@unionOfArrays.scores") as? [Int] == [3, 1, 2, 2, 9])
        #expect(people.value(forKeyPath: "@distinctUnionOfArrays.scores") as? [Int] == [3, 1, 2, 9])
        #expect((people.value(forKeyPath: "@distinctUnionOfSets.scores") as? [Int]).map(Set.init) == [1, 2, 3, 9])
        #expect(people.filter("id > 5").value(forKeyPath: "@unionOfObjects.name") as? [String] == [])
    }

    @Test("setValue(_:forKey:) on a collection updates every element inside a write")
    func collectionSetValueForKey() throws {
        let realm = try realm()
        let ada = try ada(realm)
        let young = realm.objects(InputPet.self).filter("age < 4")
        try realm.write { young.setValue(10, forKey: "age") }
        #expect(realm.objects(InputPet.self).value(forKeyPath: "@sum.age") as? Int == 25)
        try realm.write { ada.pets.setValue(NSNumber(value: 1.5), forKey: "weight") }
        #expect(ada.pets.map(\.weight) == [1.5, 1.5, 1.5])
        let unmanaged = List<InputPet>()
        unmanaged.append(InputPet())
        unmanaged.setValue("Fido", forKey: "name")
        #expect(unmanaged[0].name == "Fido")
    }

    @Test("setValue(_:forKey:) on managed Results outside a write traps, as Realm raises")
    func collectionSetValueOutsideWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(
                inMemoryIdentifier: "kvc-trap", objectTypes: [InputPerson.self, InputAddress.self, InputPet.self]))
            try realm.write { realm.create(InputPet.self, value: ["name": "Rex"]) }
            realm.objects(InputPet.self).setValue(1, forKey: "age")
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("outside of a write transaction"), "\(stderr)")
    }
}
