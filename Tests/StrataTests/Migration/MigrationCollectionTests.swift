import Foundation
import Strata
import StrataTestSupport
import Testing

// Collection properties of migration objects read as Realm Swift reads them (List<MigrationObject>
// for a list of objects, List<String> for a list of strings, …), and the new object's
// collections are live, so the code of Realm Swift's migration documentation works as written.

final class MigColDog: Object {
    @Persisted var name: String
}

/// Version 1 of "MigColPerson": no collections yet.
final class MigColPersonV1: Object {
    override class func className() -> String { "MigColPerson" }
    @Persisted var name: String
    @Persisted var dog: MigColDog?
}

/// Version 2: the single dog became a list of dogs, and tags, nicknames and scores were added.
final class MigColPersonV2: Object {
    override class func className() -> String { "MigColPerson" }
    @Persisted var name: String
    @Persisted var dogs: List<MigColDog>
    @Persisted var tags: List<String>
    @Persisted var nicknames: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var pets: Map<String, MigColDog?>
}

/// Version 3: the same classes, so a migration from 2 reads the old collections.
final class MigColPersonV3: Object {
    override class func className() -> String { "MigColPerson" }
    @Persisted var name: String
    @Persisted var dogs: List<MigColDog>
    @Persisted var tags: List<String>
    @Persisted var nicknames: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var pets: Map<String, MigColDog?>
    @Persisted var dogCount: Int
}

private func colConfig(_ directory: TemporaryDirectory, _ version: UInt64, _ type: ObjectBase.Type,
                       block: MigrationBlock? = nil) -> Realm.Configuration {
    Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("collections.realm")), schemaVersion: version,
                        migrationBlock: block, objectTypes: [type, MigColDog.self])
}

@Suite("Migration objects' collection properties")
struct MigrationCollectionTests {
    @Test("new![\"dogs\"] as! List<MigrationObject> is live: objects created in the migration can be appended, as in Realm's docs")
    func appendCreatedObjectToList() throws {
        try withTemporaryDirectory { directory in
            try {
                let realm = try Realm(configuration: colConfig(directory, 1, MigColPersonV1.self))
                try realm.write {
                    realm.add(MigColPersonV1(value: ["name": "Ann", "dog": ["name": "Rex"]]))
                    realm.add(MigColPersonV1(value: ["name": "Bob"]))
                }
            }()
            let block: MigrationBlock = { migration, oldSchemaVersion in
                guard oldSchemaVersion < 2 else { return }
                migration.enumerateObjects(ofType: "MigColPerson") { oldObject, newObject in
                    let dogs = newObject!["dogs"] as! List<MigrationObject>
                    if let dog = oldObject!["dog"] as? MigrationObject {
                        dogs.append(dog)
                    }
                    dogs.append(migration.create("MigColDog", value: ["name": "Puppy of \(oldObject!["name"] as! String)"]))
                    (newObject!["tags"] as! List<String>).append("migrated")
                    (newObject!["nicknames"] as! MutableSet<String>).insert("n")
                    (newObject!["scores"] as! Map<String, Int>)["v"] = 2
                    newObject!.dynamicMap("pets")["first"] = dogs.first
                }
            }
            let realm = try Realm(configuration: colConfig(directory, 2, MigColPersonV2.self, block: block))
            let people = realm.objects(MigColPersonV2.self).sorted(byKeyPath: "name")
            try #require(people.count == 2)
            #expect(Array(people[0].dogs.map(\.name)) == ["Rex", "Puppy of Ann"])
            #expect(Array(people[1].dogs.map(\.name)) == ["Puppy of Bob"])
            #expect(Array(people[0].tags) == ["migrated"])
            #expect(Array(people[1].nicknames) == ["n"])
            #expect(people[0].scores["v"] == 2)
            #expect(people[0].pets["first"]??.name == "Rex")
            #expect(realm.objects(MigColDog.self).count == 3, "the old dog is linked, not copied")
        }
    }

    @Test("the old object's collections read as typed unmanaged copies; dynamicList gives the new object's list")
    func readOldCollections() throws {
        try withTemporaryDirectory { directory in
            try {
                let realm = try Realm(configuration: colConfig(directory, 2, MigColPersonV2.self))
                try realm.write {
                    let person = MigColPersonV2(value: ["name": "Ann", "tags": ["a", "b"]])
                    person.dogs.append(MigColDog(value: ["name": "Rex"]))
                    person.dogs.append(MigColDog(value: ["name": "Fido"]))
                    person.nicknames.insert("annie")
                    person.scores["x"] = 1
                    realm.add(person)
                }
            }()
            let log = MigrationLog()
            let block: MigrationBlock = { migration, _ in
                migration.enumerateObjects(ofType: "MigColPerson") { oldObject, newObject in
                    let oldDogs = oldObject!["dogs"] as! List<MigrationObject>
                    log.record("old dogs \(oldDogs.map { $0["name"] as! String })")
                    log.record("old tags \(Array(oldObject!["tags"] as! List<String>))")
                    log.record("old nicknames \(Array(oldObject!["nicknames"] as! MutableSet<String>))")
                    log.record("old scores \((oldObject!["scores"] as! Map<String, Int>)["x"] ?? -1)")
                    let newDogs = newObject!.dynamicList("dogs")
                    newObject!["dogCount"] = newDogs.count
                    newDogs.remove(at: 0)
                    log.record("old dogs after removal \(oldDogs.count), new \(newDogs.count)")
                }
            }
            let realm = try Realm(configuration: colConfig(directory, 3, MigColPersonV3.self, block: block))
            #expect(log.all == ["old dogs [\"Rex\", \"Fido\"]", "old tags [\"a\", \"b\"]", "old nicknames [\"annie\"]",
                                "old scores 1", "old dogs after removal 2, new 1"])
            let person = try #require(realm.objects(MigColPersonV3.self).first)
            #expect(person.dogCount == 2)
            #expect(Array(person.dogs.map(\.name)) == ["Fido"])
        }
    }

    @Test("appending an object of another type to a migration's list fails the open with invalidInput and migrates nothing")
    func appendWrongType() throws {
        try withTemporaryDirectory { directory in
            try {
                let realm = try Realm(configuration: colConfig(directory, 1, MigColPersonV1.self))
                try realm.write { realm.add(MigColPersonV1(value: ["name": "Ann"])) }
            }()
            let block: MigrationBlock = { migration, _ in
                migration.enumerateObjects(ofType: "MigColPerson") { _, newObject in
                    (newObject!["dogs"] as! List<MigrationObject>).append(newObject!)
                }
            }
            let error = #expect(throws: Realm.Error.self) {
                _ = try Realm(configuration: colConfig(directory, 2, MigColPersonV2.self, block: block))
            }
            #expect(error?.code == .invalidInput, "\(String(describing: error))")
            #expect(try schemaVersionAtURL(URL(fileURLWithPath: directory.file("collections.realm"))) == 1)
            let old = try Realm(configuration: colConfig(directory, 1, MigColPersonV1.self))
            #expect(old.objects(MigColPersonV1.self).map(\.name) == ["Ann"])
        }
    }

    @Test("assigning an array or a List to a new object's collection property replaces its contents")
    func assignCollection() throws {
        try withTemporaryDirectory { directory in
            try {
                let realm = try Realm(configuration: colConfig(directory, 2, MigColPersonV2.self))
                try realm.write { realm.add(MigColPersonV2(value: ["name": "Ann", "tags": ["a", "b", "c"]])) }
            }()
            let block: MigrationBlock = { migration, _ in
                migration.enumerateObjects(ofType: "MigColPerson") { oldObject, newObject in
                    let tags = oldObject!["tags"] as! List<String>
                    newObject!["tags"] = tags.reversed().map { $0 }
                    newObject!["nicknames"] = tags
                }
            }
            let realm = try Realm(configuration: colConfig(directory, 3, MigColPersonV3.self, block: block))
            let person = try #require(realm.objects(MigColPersonV3.self).first)
            #expect(Array(person.tags) == ["c", "b", "a"])
            #expect(Set(person.nicknames) == ["a", "b", "c"])
        }
    }
}
