import Foundation
@testable import Strata
import Testing

final class SmokeDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age = 3
    @Persisted var owner: SmokePerson?
    @Persisted var tags: List<String>
    var ignored = 5
}

final class SmokePerson: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var dogs: List<SmokeDog>
    @Persisted(originProperty: "owner") var ownedDogs: LinkingObjects<SmokeDog>
}

@Suite("Smoke")
struct SmokeTests {
    @Test("a model round-trips")
    func roundTrip() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "smoke-\(UUID())", objectTypes: [SmokeDog.self, SmokePerson.self])
        let realm = try Realm(configuration: config)
        let dog = SmokeDog()
        dog.id = 1
        dog.name = "Rex"
        dog.tags.append("good")
        let person = SmokePerson(value: ["name": "Ada"])
        dog.owner = person
        try realm.write {
            realm.add(dog)
        }
        #expect(dog.realm === realm)
        #expect(dog.name == "Rex")
        #expect(dog.age == 3)
        #expect(dog.tags.count == 1)
        #expect(dog.owner?.name == "Ada")
        #expect(realm.objects(SmokeDog.self).count == 1)
        #expect(realm.objects(SmokePerson.self).first?.ownedDogs.count == 1)
        let found = realm.object(ofType: SmokeDog.self, forPrimaryKey: 1)
        #expect(found?.name == "Rex")
        #expect(found == dog)
        try realm.write { dog.age = 4 }
        #expect(found?.age == 4)
        print(dog)
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(SmokeDog(value: ["id": 1, "name": "Dup"])) }
        }
        #expect(realm.objects(SmokeDog.self).count == 1)
    }
}
