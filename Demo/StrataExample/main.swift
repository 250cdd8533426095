// A small tour of Strata's Realm API: declare models, open a durable Realm, write, read back.
// Run it twice: the second run finds the first run's dogs already there.
import Foundation
import Strata

final class Person: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted(originProperty: "owner") var dogs: LinkingObjects<Dog>
}

final class Dog: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted(indexed: true) var name: String
    @Persisted var age = 1
    @Persisted var owner: Person?
    @Persisted var tricks: List<String>
}

let path = CommandLine.arguments.dropFirst().first
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-example.strata").path

do {
    let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Person.self, Dog.self])
    let realm = try Realm(configuration: configuration)
    print("opened \(path): \(realm.objects(Dog.self).count) dogs so far")

    try realm.write {
        let ada = realm.object(ofType: Person.self, forPrimaryKey: "Ada") ?? realm.create(Person.self, value: ["name": "Ada"])
        let dog = Dog(value: ["name": "Rex-\(realm.objects(Dog.self).count + 1)", "age": 3])
        dog.tricks.append(objectsIn: ["sit", "roll over"])
        dog.owner = ada
        realm.add(dog)
    }
    print("committed (durable: the log was synced before write returned)")

    for dog in realm.objects(Dog.self) {
        print("  \(dog.name), age \(dog.age), owner \(dog.owner?.name ?? "-"), tricks \(Array(dog.tricks))")
    }
    if let ada = realm.object(ofType: Person.self, forPrimaryKey: "Ada") {
        print("Ada owns \(ada.dogs.count) dogs (through LinkingObjects)")
    }
} catch {
    print("error: \(error)")
    exit(1)
}
