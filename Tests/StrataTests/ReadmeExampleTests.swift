import Foundation
import Strata
import Testing

// The README's examples, kept compiling and passing (only the file paths differ).

final class ReadmePerson: Object {
    override class func className() -> String { "Person" }
    @Persisted(primaryKey: true) var name: String
    @Persisted(originProperty: "owner") var dogs: LinkingObjects<ReadmeDog>
}

final class ReadmeDog: Object {
    override class func className() -> String { "Dog" }
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted(indexed: true) var name: String
    @Persisted var age = 1
    @Persisted var owner: ReadmePerson?
    @Persisted var tricks: List<String>
    @Persisted var scores: Map<String, Int>
}

@Suite("README examples")
struct ReadmeExampleTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)-\(name)").path
    }

    @Test("the model API example runs as the README shows")
    func modelExample() throws {
        var configuration = Realm.Configuration(objectTypes: [ReadmePerson.self, ReadmeDog.self])
        configuration.fileURL = URL(fileURLWithPath: temporaryPath("default.strata"))
        let realm = try Realm(configuration: configuration)

        try realm.write {
            let ada = realm.create(ReadmePerson.self, value: ["name": "Ada"])
            let rex = ReadmeDog(value: ["name": "Rex", "age": 3])
            rex.owner = ada
            rex.tricks.append("sit")
            realm.add(rex)
        }
        let rex = realm.objects(ReadmeDog.self).first!
        #expect(rex.name == "Rex" && rex.owner?.name == "Ada")
        #expect(realm.object(ofType: ReadmePerson.self, forPrimaryKey: "Ada")!.dogs.count == 1)
    }

    @Test("the query examples run as the README shows")
    func queryExamples() throws {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: UUID().uuidString, objectTypes: [ReadmePerson.self, ReadmeDog.self]))
        try realm.write {
            let ada = realm.create(ReadmePerson.self, value: ["name": "Ada"])
            for (name, age) in [("Rex", 1), ("Rover", 7), ("Fido", 9), ("Rex", 3)] {
                let dog = realm.create(ReadmeDog.self, value: ["id": ObjectId.generate(), "name": name, "age": age])
                dog.owner = ada
            }
        }
        let puppies = realm.objects(ReadmeDog.self).where { $0.age < 2 && $0.name.starts(with: "R") }
        let same = realm.objects(ReadmeDog.self).filter("age < $0 AND name BEGINSWITH[c] $1", 2, "r")
        #expect(puppies.count == 1 && same.count == 1)

        let owners = realm.objects(ReadmePerson.self).where { $0.dogs.age > 5 }
        let busy = realm.objects(ReadmePerson.self).where { ($0.dogs.age > 5).count >= 2 }
        #expect(owners.count == 1 && busy.count == 1)
        let sorted = realm.objects(ReadmeDog.self).sorted(byKeyPath: "owner.name").distinct(by: ["name"])
        #expect(sorted.count == 3)
        let oldest: Int? = realm.objects(ReadmeDog.self).max(ofProperty: "age")
        #expect(oldest == 9)
        let top3 = realm.objects(ReadmeDog.self).filter("age > 1 SORT(age DESC) LIMIT(3)")
        #expect(top3.map(\.age) == [9, 7, 3])
    }
}
