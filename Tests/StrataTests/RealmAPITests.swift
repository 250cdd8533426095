import Foundation
@testable import Strata
import Testing

// The Realm API (REALM-SEMANTICS.md §1.2, §1.3, §2.9, §2.11): writes, add/create/delete with
// update policies, primary-key lookup, schema, dynamic access, equality, identity, refresh and
// invalidate, and persistence across close and reopen.

// MARK: - Models

final class APIPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var dog: APIDog?
    @Persisted var dogs: List<APIDog>
}

enum APIMood: Int, PersistableEnum { case calm = 1, busy = 2 }

final class APIMoodHolder: Object {
    @Persisted var mood = APIMood.busy
    @Persisted var moods: List<APIMood>
}

final class APIDog: Object, ObjectKeyIdentifiable {
    @Persisted var name: String
    @Persisted var age: Int
}

final class APIStringKey: Object {
    @Persisted(primaryKey: true) var key: String
    @Persisted var value: Int
}

final class APIObjectIdKey: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var value: Int
}

final class APIUUIDKey: Object {
    @Persisted(primaryKey: true) var id: UUID
    @Persisted var value: Int
}

final class APIOptionalIntKey: Object {
    @Persisted(primaryKey: true) var id: Int?
    @Persisted var value: Int
}

final class APIOptionalStringKey: Object {
    @Persisted(primaryKey: true) var id: String?
    @Persisted var value: Int
}

final class APIIndexed: Object {
    @Persisted(indexed: true) var title: String
    @Persisted var plain: String
}

private struct APITestError: Error, Equatable {
    let tag: Int
}

// MARK: - Helpers

private func apiTypes() -> [ObjectBase.Type] {
    [APIPerson.self, APIDog.self, APIStringKey.self, APIObjectIdKey.self, APIUUIDKey.self, APIOptionalIntKey.self,
     APIOptionalStringKey.self, APIIndexed.self]
}

private func apiMemoryRealm() throws -> Realm {
    try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "api-\(UUID().uuidString)", objectTypes: apiTypes()))
}

private func apiTemporaryRealmURL() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-api-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("api.strata")
}

private func apiRemoveRealm(at url: URL) {
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

/// Runs `body` on a thread of its own and waits for it.
private func apiOnOtherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    done.wait()
}

/// A value a background thread hands back once it has finished (read only after the join).
private final class APIResultBox: @unchecked Sendable {
    // Safety: written by one thread before the semaphore is signalled, read after the wait.
    var error: (any Error)?
}

/// Opens, writes, closes and at once reopens `iterations` file Realms while another thread keeps
/// launching `/bin/true`; returns the reopen failures.
private func apiReopenWhileSpawning(iterations: Int) throws -> [String] {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-api-spawn-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    final class Control: @unchecked Sendable {
        // Safety: `stop` is a flag polled by the launcher; a stale read only delays its exit by
        // one launch, and the semaphore orders the end.
        var stop = false
        let finished = DispatchSemaphore(value: 0)
    }
    let control = Control()
    Thread {
        while !control.stop {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/true")
            try? process.run()
            process.waitUntilExit()
        }
        control.finished.signal()
    }.start()
    defer {
        control.stop = true
        control.finished.wait()
    }
    var failures: [String] = []
    for iteration in 0..<iterations {
        let config = Realm.Configuration(fileURL: directory.appendingPathComponent("spawn\(iteration).strata"),
                                         objectTypes: [APIDog.self])
        try {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(APIDog(value: ["name": "d\(iteration)"])) }
        }()
        do {
            let realm = try Realm(configuration: config)
            if realm.objects(APIDog.self).count != 1 { failures.append("iteration \(iteration): wrong count") }
        } catch {
            failures.append("iteration \(iteration): \(error)")
        }
    }
    return failures
}

// MARK: - Tests

@Suite("Realm API")
struct RealmAPITests {
    // MARK: Writes

    @Test("write returns the value of its block")
    func writeReturnsValue() throws {
        let realm = try apiMemoryRealm()
        let value = try realm.write { () -> Int in
            realm.add(APIDog(value: ["name": "Rex"]))
            return 42
        }
        #expect(value == 42)
        let person = try realm.write { realm.create(APIPerson.self, value: ["id": 1, "name": "Ada"] as [String: Any]) }
        #expect(person.name == "Ada")
        #expect(person.realm != nil)
    }

    @Test("An error thrown in the write block propagates and cancels the write: nothing is committed")
    func writeRethrowsAndCancels() throws {
        let realm = try apiMemoryRealm()
        try realm.write { realm.add(APIDog(value: ["name": "kept"])) }
        let dog = try #require(realm.objects(APIDog.self).first)
        let added = APIDog(value: ["name": "discarded"])
        #expect(throws: APITestError(tag: 7)) {
            try realm.write {
                realm.add(added)
                dog.name = "renamed"
                throw APITestError(tag: 7)
            }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(APIDog.self).count == 1)
        #expect(dog.name == "kept")
        #expect(added.isInvalidated || added.realm == nil, "the object added in the cancelled write is not live")
        // The Realm is usable afterwards.
        try realm.write { dog.name = "after" }
        #expect(dog.name == "after")
    }

    @Test("beginWrite, commitWrite and cancelWrite drive isInWriteTransaction and what is committed")
    func manualTransactions() throws {
        let realm = try apiMemoryRealm()
        #expect(!realm.isInWriteTransaction)
        realm.beginWrite()
        #expect(realm.isInWriteTransaction)
        let cancelled = APIDog(value: ["name": "cancelled"])
        realm.add(cancelled)
        #expect(realm.objects(APIDog.self).count == 1, "the write sees its own changes")
        realm.cancelWrite()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(APIDog.self).count == 0)
        #expect(cancelled.isInvalidated, "an object created in a cancelled write is invalidated")

        realm.beginWrite()
        realm.add(APIDog(value: ["name": "committed"]))
        try realm.commitWrite()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(APIDog.self).map(\.name) == ["committed"])
    }

    @Test("cancelWrite called inside write discards the block's changes without an error")
    func cancelInsideWrite() throws {
        let realm = try apiMemoryRealm()
        try realm.write {
            realm.add(APIDog(value: ["name": "gone"]))
            realm.cancelWrite()
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(APIDog.self).isEmpty)
    }

    @Test("commitWrite without a write transaction throws")
    func commitWithoutWrite() throws {
        let realm = try apiMemoryRealm()
        #expect(throws: Realm.Error.self) { try realm.commitWrite() }
    }

    @Test("invalidate() during a write cancels it")
    func invalidateCancelsWrite() throws {
        let realm = try apiMemoryRealm()
        realm.beginWrite()
        realm.add(APIDog(value: ["name": "pending"]))
        realm.invalidate()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(APIDog.self).isEmpty)
    }

    // MARK: Add

    @Test("add makes the same instance managed, and adds the unmanaged objects it links to")
    func addManagesInstanceAndChildren() throws {
        let realm = try apiMemoryRealm()
        let person = APIPerson()
        person.id = 1
        person.name = "Ada"
        let dog = APIDog(value: ["name": "Rex", "age": 3] as [String: Any])
        let listed = [APIDog(value: ["name": "a"]), APIDog(value: ["name": "b"])]
        person.dog = dog
        person.dogs.append(objectsIn: listed)
        #expect(person.realm == nil)
        try realm.write { realm.add(person) }
        #expect(person.realm != nil)
        #expect(person.realm === realm)
        #expect(!person.isInvalidated)
        #expect(dog.realm != nil, "a linked unmanaged object becomes managed")
        #expect(listed.allSatisfy { $0.realm != nil }, "listed unmanaged objects become managed")
        #expect(realm.objects(APIDog.self).count == 3)
        #expect(person.dog?.isSameObject(as: dog) == true)
        #expect(person.dogs.map(\.name) == ["a", "b"])
        // Writes through the original instances reach the Realm.
        try realm.write { dog.age = 4 }
        #expect(realm.objects(APIPerson.self).first?.dog?.age == 4)
    }

    @Test("Re-adding a managed object of the same Realm does nothing")
    func readdIsNoOp() throws {
        let realm = try apiMemoryRealm()
        let person = APIPerson(value: ["id": 1, "name": "Ada"] as [String: Any])
        try realm.write { realm.add(person) }
        try realm.write { realm.add(person) }
        #expect(realm.objects(APIPerson.self).count == 1)
        try realm.write { realm.add(person, update: .modified) }
        #expect(realm.objects(APIPerson.self).count == 1)
        #expect(person.name == "Ada")
    }

    @Test("add with .error and an existing primary key makes write throw primaryKeyExists and commits nothing of that write")
    func addDuplicateKeyError() throws {
        let realm = try apiMemoryRealm()
        try realm.write { realm.add(APIPerson(value: ["id": 1, "name": "Ada"] as [String: Any])) }
        do {
            try realm.write {
                realm.add(APIPerson(value: ["id": 2, "name": "Second"] as [String: Any]))
                realm.add(APIPerson(value: ["id": 1, "name": "Duplicate"] as [String: Any]))
            }
            Issue.record("a duplicate primary key was accepted")
        } catch let error as Realm.Error {
            #expect(error.code == Realm.Error.primaryKeyExists)
            #expect(error.message.contains("existing primary key"), "\(error.message)")
            #expect(error.message.contains("'1'"), "\(error.message)")
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(APIPerson.self).count == 1)
        #expect(realm.object(ofType: APIPerson.self, forPrimaryKey: 2) == nil)
        #expect(realm.object(ofType: APIPerson.self, forPrimaryKey: 1)?.name == "Ada")
    }

    @Test("add with .modified or .all and an existing primary key updates the stored object")
    func addUpdatesExisting() throws {
        let realm = try apiMemoryRealm()
        let original = APIPerson(value: ["id": 1, "name": "Ada", "age": 36] as [String: Any])
        try realm.write { realm.add(original) }
        let replacement = APIPerson(value: ["id": 1, "name": "Ada L."] as [String: Any])
        try realm.write { realm.add(replacement, update: .modified) }
        #expect(realm.objects(APIPerson.self).count == 1)
        #expect(original.name == "Ada L.")
        #expect(original.age == 0, "add writes every property of the object, defaults included")
        #expect(replacement.realm != nil, "the added instance becomes managed")
        #expect(replacement == original, "both accessors are the same row")
        let third = APIPerson(value: ["id": 1, "name": "Countess", "age": 37] as [String: Any])
        third.dog = APIDog(value: ["name": "new dog"])
        try realm.write { realm.add(third, update: .all) }
        #expect(realm.objects(APIPerson.self).count == 1)
        #expect(original.name == "Countess")
        #expect(original.age == 37)
        #expect(original.dog?.name == "new dog")
        // A new key with .modified inserts.
        try realm.write { realm.add(APIPerson(value: ["id": 2] as [String: Any]), update: .modified) }
        #expect(realm.objects(APIPerson.self).count == 2)
    }

    @Test("add of a sequence adds every element")
    func addSequence() throws {
        let realm = try apiMemoryRealm()
        let dogs = (0..<5).map { APIDog(value: ["name": "dog\($0)", "age": $0] as [String: Any]) }
        try realm.write { realm.add(dogs) }
        #expect(realm.objects(APIDog.self).map(\.name) == (0..<5).map { "dog\($0)" })
        #expect(dogs.allSatisfy { $0.realm != nil })
    }

    // MARK: Create

    @Test("create from a dictionary copies the values, creates nested objects and returns a managed object")
    func createFromDictionary() throws {
        let realm = try apiMemoryRealm()
        let person = try realm.write {
            realm.create(APIPerson.self, value: [
                "id": 1, "name": "Ada", "age": 36,
                "dog": ["name": "Rex", "age": 3] as [String: Any],
                "dogs": [["name": "a", "age": 1] as [String: Any], ["b", 2] as [Any]] as [Any],
            ] as [String: Any])
        }
        #expect(person.realm != nil)
        #expect(person.id == 1 && person.name == "Ada" && person.age == 36)
        #expect(person.dog?.name == "Rex" && person.dog?.age == 3)
        #expect(person.dogs.map(\.name) == ["a", "b"])
        #expect(person.dogs.map(\.age) == [1, 2])
        #expect(realm.objects(APIDog.self).count == 3)
    }

    @Test("create from an array takes every property in declaration order")
    func createFromArray() throws {
        let realm = try apiMemoryRealm()
        let person = try realm.write {
            realm.create(APIPerson.self, value: [5, "Grace", 85, NSNull(), [["Bug", 1] as [Any]]] as [Any])
        }
        #expect(person.id == 5)
        #expect(person.name == "Grace")
        #expect(person.age == 85)
        #expect(person.dog == nil)
        #expect(person.dogs.map(\.name) == ["Bug"])
        let dog = try realm.write { realm.create(APIDog.self, value: ["Fido", 2] as [Any]) }
        #expect(dog.name == "Fido" && dog.age == 2)
    }

    @Test("create from another object copies it: the source stays as it was and the copy is a new row")
    func createFromObject() throws {
        let realm = try apiMemoryRealm()
        let source = APIDog(value: ["name": "Template", "age": 9] as [String: Any])
        let copy = try realm.write { realm.create(APIDog.self, value: source) }
        #expect(copy.name == "Template" && copy.age == 9)
        #expect(source.realm == nil, "the source object is not added")
        #expect(!copy.isSameObject(as: source))
        let secondCopy = try realm.write { realm.create(APIDog.self, value: copy) }
        #expect(!secondCopy.isSameObject(as: copy), "copying a managed object creates another row")
        #expect(realm.objects(APIDog.self).count == 2)
    }

    @Test("create(update:) from an object sets the properties that are nil in it to nil, as in Realm")
    func updateFromObjectWithNils() throws {
        let realm = try apiMemoryRealm()
        let person = try realm.write {
            realm.create(APIPerson.self, value: ["id": 1, "name": "Ada", "dog": ["name": "Rex"]] as [String: Any])
        }
        for policy in [Realm.UpdatePolicy.all, .modified] {
            try realm.write { person.dog = APIDog(value: ["name": "Rex"]) }
            let source = APIPerson(value: ["id": 1, "name": "Ada"] as [String: Any])  // dog nil
            try realm.write { realm.create(APIPerson.self, value: source, update: policy) }
            #expect(person.dog == nil, "\(policy)")
        }
    }

    @Test("create with .modified and a partial dictionary changes only the given properties")
    func createPartialUpdate() throws {
        let realm = try apiMemoryRealm()
        let person = try realm.write {
            realm.create(APIPerson.self, value: ["id": 1, "name": "Ada", "age": 36,
                                                 "dog": ["name": "Rex"]] as [String: Any])
        }
        let updated = try realm.write {
            realm.create(APIPerson.self, value: ["id": 1, "age": 37] as [String: Any], update: .modified)
        }
        #expect(realm.objects(APIPerson.self).count == 1)
        #expect(updated == person)
        #expect(person.age == 37)
        #expect(person.name == "Ada", "a property not given keeps its value")
        #expect(person.dog?.name == "Rex")
        try realm.write {
            realm.create(APIPerson.self, value: ["id": 1, "name": "Ada King"] as [String: Any], update: .all)
        }
        #expect(person.name == "Ada King")
        #expect(person.age == 37)
        // NSNull clears an optional property.
        try realm.write { realm.create(APIPerson.self, value: ["id": 1, "dog": NSNull()] as [String: Any], update: .modified) }
        #expect(person.dog == nil)
        #expect(person.name == "Ada King")
    }

    @Test("create with .error and an existing primary key makes write throw primaryKeyExists")
    func createDuplicateKey() throws {
        let realm = try apiMemoryRealm()
        try realm.write { realm.create(APIStringKey.self, value: ["key": "a", "value": 1] as [String: Any]) }
        do {
            try realm.write { realm.create(APIStringKey.self, value: ["key": "a", "value": 2] as [String: Any]) }
            Issue.record("a duplicate primary key was accepted")
        } catch let error as Realm.Error {
            #expect(error.code == Realm.Error.primaryKeyExists)
        }
        #expect(realm.object(ofType: APIStringKey.self, forPrimaryKey: "a")?.value == 1)
    }

    @Test("An update policy other than .error on a type without a primary key makes write throw")
    func updatePolicyWithoutPrimaryKey() throws {
        let realm = try apiMemoryRealm()
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(APIDog.self, value: ["name": "x"], update: .modified) }
        }
        #expect(realm.objects(APIDog.self).isEmpty)
    }

    // MARK: Delete

    @Test("delete of an object, a sequence, a Results and deleteAll remove objects and invalidate their accessors")
    func deletes() throws {
        let realm = try apiMemoryRealm()
        let dogs = (0..<6).map { APIDog(value: ["name": "d\($0)"]) }
        let person = APIPerson(value: ["id": 1] as [String: Any])
        try realm.write {
            realm.add(dogs)
            realm.add(person)
        }
        let otherAccessor = realm.objects(APIDog.self)[0]
        try realm.write { realm.delete(dogs[0]) }
        #expect(dogs[0].isInvalidated)
        #expect(otherAccessor.isInvalidated, "every accessor of a deleted object is invalidated")
        #expect(realm.objects(APIDog.self).count == 5)

        try realm.write { realm.delete([dogs[1], dogs[2]]) }
        #expect(dogs[1].isInvalidated && dogs[2].isInvalidated)
        #expect(realm.objects(APIDog.self).map(\.name) == ["d3", "d4", "d5"])

        try realm.write { realm.delete(realm.objects(APIDog.self)) }
        #expect(realm.objects(APIDog.self).isEmpty)
        #expect(dogs[3...].allSatisfy { $0.isInvalidated })
        #expect(!person.isInvalidated)
        #expect(!realm.isEmpty)

        try realm.write { realm.deleteAll() }
        #expect(person.isInvalidated)
        #expect(realm.objects(APIPerson.self).isEmpty)
        #expect(realm.isEmpty)
    }

    @Test("Deleting the objects of a List deletes them and empties the list")
    func deleteListContents() throws {
        let realm = try apiMemoryRealm()
        let person = APIPerson(value: ["id": 1] as [String: Any])
        person.dogs.append(objectsIn: [APIDog(value: ["name": "a"]), APIDog(value: ["name": "b"])])
        try realm.write {
            realm.add(person)
            realm.add(APIDog(value: ["name": "unlisted"]))
        }
        try realm.write { realm.delete(person.dogs) }
        #expect(person.dogs.isEmpty)
        #expect(realm.objects(APIDog.self).map(\.name) == ["unlisted"])
    }

    @Test("Deleting an already deleted object makes write throw")
    func deleteTwice() throws {
        let realm = try apiMemoryRealm()
        let dog = APIDog()
        try realm.write { realm.add(dog) }
        try realm.write { realm.delete(dog) }
        #expect(throws: Realm.Error.self) { try realm.write { realm.delete(dog) } }
    }

    // MARK: Lookup

    @Test("object(ofType:forPrimaryKey:) finds objects by Int, String, ObjectId and UUID keys and returns nil when missing")
    func primaryKeyLookup() throws {
        let realm = try apiMemoryRealm()
        let objectId = ObjectId.generate()
        let uuid = UUID()
        try realm.write {
            realm.add(APIPerson(value: ["id": 42, "name": "int"] as [String: Any]))
            realm.add(APIStringKey(value: ["key": "k", "value": 1] as [String: Any]))
            realm.add(APIObjectIdKey(value: ["_id": objectId, "value": 2] as [String: Any]))
            realm.add(APIUUIDKey(value: ["id": uuid, "value": 3] as [String: Any]))
        }
        #expect(realm.object(ofType: APIPerson.self, forPrimaryKey: 42)?.name == "int")
        #expect(realm.object(ofType: APIPerson.self, forPrimaryKey: 43) == nil)
        #expect(realm.object(ofType: APIStringKey.self, forPrimaryKey: "k")?.value == 1)
        #expect(realm.object(ofType: APIStringKey.self, forPrimaryKey: "K") == nil)
        #expect(realm.object(ofType: APIObjectIdKey.self, forPrimaryKey: objectId)?.value == 2)
        #expect(realm.object(ofType: APIObjectIdKey.self, forPrimaryKey: ObjectId.generate()) == nil)
        #expect(realm.object(ofType: APIUUIDKey.self, forPrimaryKey: uuid)?.value == 3)
        #expect(realm.object(ofType: APIUUIDKey.self, forPrimaryKey: UUID()) == nil)
        #expect(realm.object(ofType: APIObjectIdKey.self, forPrimaryKey: objectId)?._id == objectId)
    }

    @Test("An optional primary key accepts nil as a key, for storage and lookup")
    func optionalPrimaryKey() throws {
        let realm = try apiMemoryRealm()
        try realm.write {
            realm.add(APIOptionalIntKey(value: ["value": 1]))
            realm.add(APIOptionalIntKey(value: ["id": 5, "value": 2]))
            realm.add(APIOptionalStringKey(value: ["id": NSNull(), "value": 3] as [String: Any]))
        }
        #expect(realm.object(ofType: APIOptionalIntKey.self, forPrimaryKey: Int?.none)?.value == 1)
        #expect(realm.object(ofType: APIOptionalIntKey.self, forPrimaryKey: 5)?.value == 2)
        #expect(realm.object(ofType: APIOptionalIntKey.self, forPrimaryKey: Int?.some(5))?.value == 2)
        #expect(realm.object(ofType: APIOptionalIntKey.self, forPrimaryKey: 6) == nil)
        #expect(realm.object(ofType: APIOptionalStringKey.self, forPrimaryKey: String?.none)?.value == 3)
        #expect(realm.object(ofType: APIOptionalStringKey.self, forPrimaryKey: "x") == nil)
        // A second nil key is a duplicate.
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(APIOptionalIntKey(value: ["value": 9])) }
        }
    }

    // MARK: Schema

    @Test("className(), primaryKey() and objectSchema describe the model")
    func schemaDescriptions() throws {
        #expect(APIPerson.className() == "APIPerson")
        #expect(APIPerson.primaryKey() == "id")
        #expect(APIDog.primaryKey() == nil)
        #expect(APIObjectIdKey.primaryKey() == "_id")
        let schema = APIPerson().objectSchema
        #expect(schema.className == "APIPerson")
        #expect(schema.properties.map(\.name) == ["id", "name", "age", "dog", "dogs"])
        #expect(schema.primaryKeyProperty?.name == "id")
        #expect(schema["id"]?.isPrimary == true)
        #expect(schema["name"]?.isPrimary == false)
        #expect(schema["dog"]?.type == .object)
        #expect(schema["dog"]?.isOptional == true)
        #expect(schema["dog"]?.objectClassName == "APIDog")
        #expect(schema["dogs"]?.isArray == true)
        #expect(schema["missing"] == nil)
        #expect(!schema.isEmbedded)
        let indexed = APIIndexed().objectSchema
        #expect(indexed["title"]?.isIndexed == true)
        #expect(indexed["plain"]?.isIndexed == false)
        let realm = try apiMemoryRealm()
        let person = APIPerson(value: ["id": 1] as [String: Any])
        try realm.write { realm.add(person) }
        #expect(person.objectSchema == schema, "a managed object has the same schema")
        #expect(realm.schema["APIPerson"] == schema)
        #expect(realm.schema["APIDog"] != nil)
    }

    // MARK: Dynamic access

    @Test("obj[\"name\"] reads and writes properties by name, unmanaged and managed")
    func dynamicSubscript() throws {
        let realm = try apiMemoryRealm()
        let person = APIPerson(value: ["id": 1, "name": "Ada"] as [String: Any])
        #expect(person["name"] as? String == "Ada")
        #expect(person["id"] as? Int == 1)
        #expect(person["missing"] == nil)
        person["age"] = 30
        #expect(person.age == 30)
        try realm.write { realm.add(person) }
        #expect(person["name"] as? String == "Ada")
        #expect(person["age"] as? Int == 30)
        #expect(person["missing"] == nil)
        try realm.write {
            person["name"] = "Ada Lovelace"
            person["dog"] = APIDog(value: ["name": "Dyn"])
        }
        #expect(person.name == "Ada Lovelace")
        #expect((person["dog"] as? APIDog)?.name == "Dyn")
        #expect(realm.objects(APIDog.self).count == 1)
        try realm.write { person["dog"] = nil }
        #expect(person.dog == nil)
        let dogs = try #require(person["dogs"] as? List<APIDog>)
        #expect(dogs.isEmpty)
    }

    // MARK: Object(value:)

    @Test("Object(value:) fills an unmanaged object from a dictionary, an array, or another object")
    func objectInitWithValue() {
        let fromDictionary = APIPerson(value: ["id": 3, "name": "Dict", "dogs": [["name": "n"]]] as [String: Any])
        #expect(fromDictionary.realm == nil)
        #expect(fromDictionary.id == 3 && fromDictionary.name == "Dict" && fromDictionary.age == 0)
        #expect(fromDictionary.dogs.map(\.name) == ["n"])
        let fromArray = APIDog(value: ["Arr", 4] as [Any])
        #expect(fromArray.name == "Arr" && fromArray.age == 4)
        let fromObject = APIDog(value: fromArray)
        #expect(fromObject.name == "Arr" && fromObject.age == 4)
        #expect(fromObject !== fromArray)
        fromObject.name = "changed"
        #expect(fromArray.name == "Arr", "the copy is independent")
    }

    @Test("Object(value:) copies collections: changing the copy's list leaves the source's list alone")
    func objectInitCopiesCollections() {
        let source = APIPerson(value: ["id": 1, "dogs": [["name": "shared"]]] as [String: Any])
        let copy = APIPerson(value: source)
        #expect(copy.dogs.map(\.name) == ["shared"])
        #expect(copy.dogs !== source.dogs, "the copy has a list of its own")
        copy.dogs.append(APIDog(value: ["name": "only in copy"]))
        #expect(source.dogs.count == 1)
    }

    @Test("create from a managed object with embedded objects gives the copy embedded objects of its own")
    func createCopiesEmbeddedObjects() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "api-embedded-\(UUID().uuidString)",
                                                                 objectTypes: [TTLinkHolder.self, TTTarget.self]))
        let original = TTLinkHolder()
        original.name = "original"
        original.embedded = TTEmbedded(value: ["label": "mine", "value": 1] as [String: Any])
        original.embeddedList.append(TTEmbedded(value: ["label": "listed", "value": 2] as [String: Any]))
        try realm.write { realm.add(original) }
        let copy = try realm.write { realm.create(TTLinkHolder.self, value: original) }
        #expect(copy.embedded?.label == "mine")
        #expect(copy.embeddedList.map(\.label) == ["listed"])
        #expect(copy.embedded?.isSameObject(as: original.embedded) == false, "an embedded object has one parent")
        #expect(copy.embeddedList.first?.isSameObject(as: original.embeddedList.first) == false)
        try realm.write { realm.delete(original) }
        #expect(copy.embedded?.label == "mine", "deleting the original does not delete the copy's embedded object")
        #expect(copy.embeddedList.map(\.label) == ["listed"])
    }

    // MARK: Identity and equality

    @Test("isSameObject(as:) is true for accessors of the same row and for the same unmanaged instance only")
    func sameObject() throws {
        let realm = try apiMemoryRealm()
        let dog = APIDog(value: ["name": "Rex"])
        let twin = APIDog(value: ["name": "Rex"])
        #expect(dog.isSameObject(as: dog))
        #expect(!dog.isSameObject(as: twin), "unmanaged objects with equal values are different objects")
        #expect(!dog.isSameObject(as: nil))
        try realm.write { realm.add([dog, twin]) }
        let first = realm.objects(APIDog.self)[0]
        let again = realm.objects(APIDog.self)[0]
        #expect(first.isSameObject(as: again))
        #expect(first.isSameObject(as: dog))
        #expect(!first.isSameObject(as: twin))
    }

    @Test("Managed objects with a primary key are equal across accessors; without one only identity is equality")
    func equality() throws {
        let realm = try apiMemoryRealm()
        try realm.write {
            realm.add(APIPerson(value: ["id": 1, "name": "Ada"] as [String: Any]))
            realm.add(APIPerson(value: ["id": 2, "name": "Ada"] as [String: Any]))
            realm.add(APIDog(value: ["name": "Rex"]))
        }
        let a1 = try #require(realm.object(ofType: APIPerson.self, forPrimaryKey: 1))
        let a2 = try #require(realm.objects(APIPerson.self).first)
        let b = try #require(realm.object(ofType: APIPerson.self, forPrimaryKey: 2))
        #expect(a1 !== a2)
        #expect(a1 == a2)
        #expect(a1.hashValue == a2.hashValue)
        #expect(Set([a1, a2, b]).count == 2)
        #expect(a1 != b, "different rows with equal values differ")
        let d1 = realm.objects(APIDog.self)[0]
        let d2 = realm.objects(APIDog.self)[0]
        #expect(d1 == d1)
        #expect(d1 != d2, "without a primary key, accessors of one row are equal only to themselves")
        #expect(d1.isSameObject(as: d2))
        let u1 = APIPerson(value: ["id": 9] as [String: Any])
        let u2 = APIPerson(value: ["id": 9] as [String: Any])
        #expect(u1 != u2, "unmanaged objects compare by identity")
        #expect(u1 == u1)
    }

    @Test("description prints the class name and every property with its value")
    func descriptionListsProperties() throws {
        let realm = try apiMemoryRealm()
        let person = APIPerson(value: ["id": 7, "name": "Ada", "age": 36] as [String: Any])
        let unmanagedText = person.description
        #expect(unmanagedText.hasPrefix("APIPerson {"), "\(unmanagedText)")
        #expect(unmanagedText.contains("\tid = 7;"), "\(unmanagedText)")
        #expect(unmanagedText.contains("\tname = Ada;"), "\(unmanagedText)")
        #expect(unmanagedText.contains("\tage = 36;"), "\(unmanagedText)")
        #expect(unmanagedText.contains("\tdog = (null);"), "\(unmanagedText)")
        #expect(unmanagedText.contains("\tdogs = List<APIDog> <0x"), "\(unmanagedText)")
        person.dog = APIDog(value: ["name": "Rex"])
        try realm.write { realm.add(person) }
        let managedText = person.description
        #expect(managedText.contains("\tname = Ada;"), "\(managedText)")
        #expect(managedText.contains("\tdog = APIDog {\n\t\tname = Rex;\n"), "\(managedText)")
        try realm.write { realm.delete(person) }
        #expect(person.description == "[invalid object]")
    }

    @Test("a cycle of objects prints five levels deep, then Realm's <Maximum depth exceeded>, instead of recursing forever")
    func descriptionOfACycle() throws {
        let realm = try apiMemoryRealm()
        let person = try realm.write { realm.create(APIPerson.self, value: ["id": 1, "name": "Ada"] as [String: Any]) }
        let dog = try realm.write { realm.create(APIDog.self, value: ["name": "Rex"]) }
        try realm.write { person.dogs.append(dog); person.dogs.append(dog) }
        let list = person.dogs
        try realm.write { list.append(objectsIn: [dog]) }
        let text = person.description
        #expect(text.contains("\tdogs = List<APIDog> <0x"), "\(text)")
        #expect(text.contains("\t\t[2] APIDog {\n\t\t\tname = Rex;"), "\(text)")
        let mixed = AnyRealmValue.fromArray([.int(1), .fromArray([.string("a")])])
        #expect(RealmDescription.value(mixed, depth: 5).contains("[1] List<mixed> <0x"))
        // A list holding itself (through AnyRealmValue) stops at the depth bound.
        let deep = (0..<10).reduce(AnyRealmValue.int(0)) { inner, _ in .fromArray([inner]) }
        #expect(RealmDescription.value(deep, depth: 5).contains(RealmDescription.depthExceeded))
        // A map of optional objects names the objects' class, as Realm's does.
        let map = Map<String, APIDog?>()
        map["rex"] = APIDog(value: ["name": "Rex"])
        #expect(map.description.hasPrefix("Map<string, APIDog> <0x"), "\(map.description)")
        #expect(map.description.contains("[rex]: APIDog {\n\t\tname = Rex;"), "\(map.description)")
        // Enums print the value stored, as Realm's accessors read it.
        let holder = APIMoodHolder()
        holder.moods.append(.calm)
        #expect(holder.description.contains("\tmood = 2;") && holder.description.contains("[0] 1"), "\(holder.description)")
        let any = AnyRealmCollection(person.dogs).description
        #expect(any.hasPrefix("AnyRealmCollection<APIDog> <0x") && any.contains("[2] APIDog {"), "\(any)")
    }

    @Test("The ObjectKeyIdentifiable id is the same for every accessor of an object and stable across refresh")
    func stableIdentifier() throws {
        let realm = try apiMemoryRealm()
        try realm.write {
            realm.add(APIDog(value: ["name": "a"]))
            realm.add(APIDog(value: ["name": "b"]))
        }
        let first = realm.objects(APIDog.self)[0]
        let again = realm.objects(APIDog.self)[0]
        let second = realm.objects(APIDog.self)[1]
        #expect(first.id == again.id)
        #expect(first.id != second.id)
        let before = first.id
        try realm.write { first.name = "renamed" }
        realm.refresh()
        #expect(first.id == before)
        #expect(realm.objects(APIDog.self)[0].id == before)
        try realm.write { realm.add(APIDog(value: ["name": "c"])) }
        #expect(realm.objects(APIDog.self)[0].id == before)
        let unmanaged = APIDog()
        #expect(unmanaged.id == unmanaged.id)
    }

    // MARK: Refresh, invalidate, isEmpty

    @Test("A Realm keeps its version until refresh() picks up a write made on another thread")
    func refreshSeesOtherThreadWrites() throws {
        let identifier = "api-refresh-\(UUID().uuidString)"
        let config = Realm.Configuration(inMemoryIdentifier: identifier, objectTypes: apiTypes())
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(APIDog(value: ["name": "local"])) }
        let results = realm.objects(APIDog.self)
        #expect(results.count == 1)
        #expect(realm.refresh() == false, "nothing new to see")
        let box = APIResultBox()
        apiOnOtherThread {
            do {
                let other = try Realm(configuration: config)
                try other.write { other.add(APIDog(value: ["name": "remote"])) }
            } catch {
                box.error = error
            }
        }
        #expect(box.error == nil, "\(String(describing: box.error))")
        #expect(results.count == 1, "the Realm reads its pinned version until it refreshes")
        #expect(realm.refresh() == true)
        #expect(results.count == 2)
        #expect(results.map(\.name) == ["local", "remote"])
    }

    @Test("beginWrite advances to the newest version first")
    func beginWriteAdvances() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "api-advance-\(UUID().uuidString)", objectTypes: apiTypes())
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(APIPerson(value: ["id": 1] as [String: Any])) }
        let box = APIResultBox()
        apiOnOtherThread {
            do {
                let other = try Realm(configuration: config)
                try other.write { other.add(APIPerson(value: ["id": 2] as [String: Any])) }
            } catch {
                box.error = error
            }
        }
        #expect(box.error == nil)
        // Without the advance, adding id 2 here would not see the other thread's object.
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(APIPerson(value: ["id": 2] as [String: Any])) }
        }
        #expect(realm.objects(APIPerson.self).count == 2)
    }

    @Test("invalidate() invalidates objects read before; the Realm reads the newest version on next use")
    func invalidateDropsVersion() throws {
        let realm = try apiMemoryRealm()
        try realm.write { realm.add(APIDog(value: ["name": "a"])) }
        let dog = realm.objects(APIDog.self)[0]
        realm.invalidate()
        #expect(dog.isInvalidated)
        let fresh = realm.objects(APIDog.self)
        #expect(fresh.count == 1)
        #expect(fresh[0].name == "a")
        try realm.write { realm.add(APIDog(value: ["name": "b"])) }
        #expect(realm.objects(APIDog.self).count == 2)
    }

    @Test("objects and collections read before invalidate() stay invalidated after the Realm reads again")
    func invalidateIsForGood() throws {
        let realm = try apiMemoryRealm()
        try realm.write { realm.add(APIPerson(value: ["id": 1, "dogs": [["name": "a"]]] as [String: Any])) }
        let person = realm.objects(APIPerson.self)[0]
        let dogs = person.dogs
        #expect(!person.isInvalidated && !dogs.isInvalidated)
        realm.invalidate()
        try realm.write { realm.add(APIDog(value: ["name": "b"])) }
        #expect(realm.objects(APIDog.self).count == 2)
        #expect(person.isInvalidated)
        #expect(dogs.isInvalidated)
        let again = try #require(realm.object(ofType: APIPerson.self, forPrimaryKey: 1))
        #expect(!again.isInvalidated && again.dogs.count == 1)
    }

    @Test("reading an object read before invalidate() traps, as in Realm")
    func readAfterInvalidateTraps() async {
        await #expect(processExitsWith: .failure) {
            let realm = try apiMemoryRealm()
            try realm.write { realm.add(APIDog(value: ["name": "a"])) }
            let dog = realm.objects(APIDog.self)[0]
            _ = dog.name
            realm.invalidate()
            _ = dog.name
        }
    }

    @Test("setting a property of an object read before invalidate() traps, also inside a later write")
    func writeAfterInvalidateTraps() async {
        await #expect(processExitsWith: .failure) {
            let realm = try apiMemoryRealm()
            try realm.write { realm.add(APIDog(value: ["name": "a"])) }
            let dog = realm.objects(APIDog.self)[0]
            realm.invalidate()
            try realm.write { dog.name = "b" }
        }
    }

    @Test("objects(Object.self), the base class rather than a model, traps, as in Realm")
    func baseClassObjectsTraps() async {
        #expect(Object.primaryKey() == nil, "the base class itself still answers primaryKey()")
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try apiMemoryRealm().objects(Object.self)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Object type 'Object' is not managed by the Realm"))
    }

    @Test("isEmpty is true for a new Realm and after deleteAll, false with objects")
    func isEmpty() throws {
        let realm = try apiMemoryRealm()
        #expect(realm.isEmpty)
        try realm.write { realm.add(APIStringKey(value: ["key": "k"])) }
        #expect(!realm.isEmpty)
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
    }

    @Test("Opening the same configuration twice on a thread gives Realms that share the write transaction")
    func sameThreadSharesWrite() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "api-shared-\(UUID().uuidString)", objectTypes: apiTypes())
        let realm = try Realm(configuration: config)
        try realm.write {
            let again = try Realm(configuration: config)
            #expect(again.isInWriteTransaction)
            again.add(APIDog(value: ["name": "via second instance"]))
        }
        #expect(realm.objects(APIDog.self).map(\.name) == ["via second instance"])
    }

    // MARK: Persistence

    @Test("A closed file Realm can be reopened at once, even while the process launches other programs")
    func reopenWhileSpawning() async {
        // Runs in a child process so that its launches cannot disturb the other tests' files. The
        // child's exit code is the number of failed reopens (capped at 100).
        await #expect(processExitsWith: .success) {
            let failures = try apiReopenWhileSpawning(iterations: 150)
            for failure in failures.prefix(3) { FileHandle.standardError.write(Data("\(failure)\n".utf8)) }
            exit(Int32(min(failures.count, 100)))
        }
    }

    @Test("Creates, updates, deletes and links survive closing and reopening the file")
    func survivesReopen() throws {
        let url = try apiTemporaryRealmURL()
        defer { apiRemoveRealm(at: url) }
        let config = Realm.Configuration(fileURL: url, objectTypes: apiTypes())
        let objectId = ObjectId.generate()
        let uuid = UUID()
        weak var closedRealm: Realm?
        try {
            let realm = try Realm(configuration: config)
            closedRealm = realm
            try realm.write {
                let person = realm.create(APIPerson.self, value: ["id": 1, "name": "Ada", "age": 36,
                                                                  "dog": ["name": "Rex"]] as [String: Any])
                person.dogs.append(objectsIn: [APIDog(value: ["name": "a"]), APIDog(value: ["name": "b"])])
                realm.add(APIPerson(value: ["id": 2, "name": "Temp"] as [String: Any]))
                realm.add(APIStringKey(value: ["key": "s", "value": 1] as [String: Any]))
                realm.add(APIObjectIdKey(value: ["_id": objectId, "value": 2] as [String: Any]))
                realm.add(APIUUIDKey(value: ["id": uuid, "value": 3] as [String: Any]))
                realm.add(APIOptionalIntKey(value: ["value": 4]))
            }
            try realm.write {
                realm.create(APIPerson.self, value: ["id": 1, "age": 37] as [String: Any], update: .modified)
                realm.delete(realm.object(ofType: APIPerson.self, forPrimaryKey: 2)!)
                realm.object(ofType: APIPerson.self, forPrimaryKey: 1)!.dogs.move(from: 0, to: 1)
            }
        }()
        #expect(closedRealm == nil, "the first Realm was closed")
        let realm = try Realm(configuration: config)
        #expect(realm.objects(APIPerson.self).count == 1)
        let person = try #require(realm.object(ofType: APIPerson.self, forPrimaryKey: 1))
        #expect(person.name == "Ada")
        #expect(person.age == 37)
        #expect(person.dog?.name == "Rex")
        #expect(person.dogs.map(\.name) == ["b", "a"])
        #expect(realm.object(ofType: APIPerson.self, forPrimaryKey: 2) == nil)
        #expect(realm.objects(APIDog.self).count == 3)
        #expect(realm.object(ofType: APIStringKey.self, forPrimaryKey: "s")?.value == 1)
        #expect(realm.object(ofType: APIObjectIdKey.self, forPrimaryKey: objectId)?.value == 2)
        #expect(realm.object(ofType: APIUUIDKey.self, forPrimaryKey: uuid)?.value == 3)
        #expect(realm.object(ofType: APIOptionalIntKey.self, forPrimaryKey: Int?.none)?.value == 4)
        // Primary keys are still enforced after reopening.
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(APIStringKey(value: ["key": "s"])) }
        }
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
    }
}
