import Foundation
@testable import Strata
import Testing

// User-caused failures throw a typed Realm.Error with a code and a message
// (REALM-SEMANTICS.md §1.2, §2.11, §2.13, §2.14); programmer errors trap (§2.12).

// MARK: - Models

final class ErrKeyed: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var blob: Data
    @Persisted var strings: List<String>
    @Persisted var scores: Map<String, Int>
}

final class ErrTwoKeys: Object {
    @Persisted(primaryKey: true) var first: Int
    @Persisted(primaryKey: true) var second: String
}

final class ErrLinkTarget: Object {
    @Persisted var name: String
}

final class ErrRequiredLink: Object {
    @Persisted var target: ErrLinkTarget
}

final class ErrKeyedEmbedded: EmbeddedObject {
    @Persisted(primaryKey: true) var id: Int
}

final class ErrEmbeddedParent: Object {
    @Persisted var child: ErrKeyedEmbedded?
}

final class ErrBadBacklink: Object {
    @Persisted(originProperty: "nonexistent") var owners: LinkingObjects<ErrLinkTarget>
}

// MARK: - Helpers

private func errTemporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-errors-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

private func errMemoryRealm() throws -> Realm {
    try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "errors-\(UUID().uuidString)",
                                                 objectTypes: [ErrKeyed.self]))
}

/// Runs `body` and returns the Realm.Error it throws, recording an issue when it throws
/// nothing or another error.
private func errCapture(_ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                        _ body: () throws -> Void) -> Realm.Error? {
    do {
        try body()
        Issue.record("\(what): nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as Realm.Error {
        return error
    } catch {
        Issue.record("\(what): threw \(type(of: error)) \(error), not a Realm.Error", sourceLocation: sourceLocation)
    }
    return nil
}

// MARK: - Tests

@Suite("Errors")
struct ErrorTests {
    // MARK: Opening

    @Test("Opening a missing file read-only throws fileNotFound and creates nothing")
    func readOnlyMissingFile() throws {
        let directory = try errTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("missing.strata")
        let config = Realm.Configuration(fileURL: url, readOnly: true, objectTypes: [ErrKeyed.self])
        let error = errCapture("read-only open of a missing file") { _ = try Realm(configuration: config) }
        #expect(error?.code == Realm.Error.fileNotFound)
        #expect(error?.message.isEmpty == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty,
                "a read-only open creates no file")
        // The code also matches in a catch pattern.
        do {
            _ = try Realm(configuration: config)
        } catch Realm.Error.fileNotFound {
            // expected
        } catch {
            Issue.record("catch Realm.Error.fileNotFound did not match \(error)")
        }
    }

    @Test("readOnly with deleteRealmIfMigrationNeeded is refused at open with Realm's message, and nothing is deleted")
    func readOnlyWithDeleteIfMigrationNeeded() throws {
        let directory = try errTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("kept.strata")
        try {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [ErrKeyed.self]))
            try realm.write { realm.add(ErrKeyed(value: ["id": 1, "name": "kept"] as [String: Any])) }
        }()
        var config = Realm.Configuration(fileURL: url, readOnly: true, objectTypes: [ErrKeyed.self])
        config.deleteRealmIfMigrationNeeded = true
        let error = errCapture("readOnly with deleteRealmIfMigrationNeeded") { _ = try Realm(configuration: config) }
        #expect(error?.code == Realm.Error.fail)
        #expect(error?.message == "Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
        config.deleteRealmIfMigrationNeeded = false
        #expect(try Realm(configuration: config).objects(ErrKeyed.self).first?.name == "kept")
    }

    @Test("A write on a read-only Realm throws readOnly, and reads still work")
    func writeOnReadOnlyRealm() throws {
        let directory = try errTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("readonly.strata")
        try {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [ErrKeyed.self]))
            try realm.write { realm.add(ErrKeyed(value: ["id": 1, "name": "existing"] as [String: Any])) }
        }()
        let config = Realm.Configuration(fileURL: url, readOnly: true, objectTypes: [ErrKeyed.self])
        let realm = try Realm(configuration: config)
        #expect(realm.objects(ErrKeyed.self).first?.name == "existing")
        let error = errCapture("write on a read-only Realm") {
            try realm.write { realm.add(ErrKeyed(value: ["id": 2] as [String: Any])) }
        }
        #expect(error?.code == Realm.Error.readOnly, "\(String(describing: error))")
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(ErrKeyed.self).count == 1)
        let emptyWrite = errCapture("empty write on a read-only Realm") { try realm.write {} }
        #expect(emptyWrite?.code == Realm.Error.readOnly)
        realm.beginWrite()
        let manual = errCapture("commitWrite on a read-only Realm") { try realm.commitWrite() }
        #expect(manual?.code == Realm.Error.readOnly)
        #expect(!realm.isInWriteTransaction)
    }

    @Test("A file that is not a Strata file throws invalidDatabase and is left untouched")
    func notAStrataFile() throws {
        let directory = try errTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("text.strata")
        let contents = Data(String(repeating: "This is a plain text file, not a database.\n", count: 100).utf8)
        try contents.write(to: url)
        let error = errCapture("opening a text file") {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [ErrKeyed.self]))
        }
        #expect(error?.code == Realm.Error.invalidDatabase, "\(String(describing: error))")
        #expect(error?.path?.hasSuffix("text.strata") == true, "the error names the file: \(String(describing: error))")
        #expect(try Data(contentsOf: url) == contents)
    }

    @Test("Two primary keys in one class make opening throw invalidSchema")
    func twoPrimaryKeys() {
        let error = errCapture("two primary keys") {
            _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "errors-\(UUID().uuidString)",
                                                             objectTypes: [ErrTwoKeys.self]))
        }
        #expect(error?.code == Realm.Error.invalidSchema)
        #expect(error?.message.contains("primary key") == true, "\(String(describing: error?.message))")
        #expect(error?.message.contains("ErrTwoKeys") == true)
    }

    @Test("A non-optional Object link property makes opening throw invalidSchema")
    func requiredLink() {
        let error = errCapture("non-optional link") {
            _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "errors-\(UUID().uuidString)",
                                                             objectTypes: [ErrRequiredLink.self, ErrLinkTarget.self]))
        }
        #expect(error?.code == Realm.Error.invalidSchema)
        #expect(error?.message.contains("target") == true, "\(String(describing: error?.message))")
        #expect(error?.message.contains("optional") == true)
    }

    @Test("A primary key on an embedded object makes opening throw invalidSchema")
    func embeddedPrimaryKey() {
        let error = errCapture("embedded primary key") {
            _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "errors-\(UUID().uuidString)",
                                                             objectTypes: [ErrEmbeddedParent.self]))
        }
        #expect(error?.code == Realm.Error.invalidSchema)
    }

    @Test("LinkingObjects whose origin property does not exist make opening throw invalidSchema")
    func badLinkingObjectsOrigin() {
        let error = errCapture("bad origin property") {
            _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "errors-\(UUID().uuidString)",
                                                             objectTypes: [ErrBadBacklink.self, ErrLinkTarget.self]))
        }
        #expect(error?.code == Realm.Error.invalidSchema)
        #expect(error?.message.contains("nonexistent") == true)
    }

    // MARK: Primary keys

    @Test("A duplicate primary key makes write throw primaryKeyExists naming the type and key")
    func duplicatePrimaryKey() throws {
        let realm = try errMemoryRealm()
        try realm.write { realm.add(ErrKeyed(value: ["id": 1, "name": "first"] as [String: Any])) }
        let error = errCapture("duplicate key") {
            try realm.write { realm.add(ErrKeyed(value: ["id": 1, "name": "second"] as [String: Any])) }
        }
        #expect(error?.code == Realm.Error.primaryKeyExists)
        #expect(error?.message
            == "Attempting to create an object of type 'ErrKeyed' with an existing primary key value '1'.")
        #expect(realm.objects(ErrKeyed.self).map(\.name) == ["first"])
        // The code matches in a catch pattern.
        do {
            try realm.write { realm.add(ErrKeyed(value: ["id": 1] as [String: Any])) }
        } catch Realm.Error.primaryKeyExists {
            // expected
        } catch {
            Issue.record("catch Realm.Error.primaryKeyExists did not match \(error)")
        }
    }

    @Test("Changing the primary key of a managed object makes write throw and changes nothing")
    func changingPrimaryKey() throws {
        let realm = try errMemoryRealm()
        let object = ErrKeyed(value: ["id": 1, "name": "before"] as [String: Any])
        try realm.write { realm.add(object) }
        let error = errCapture("primary key change") {
            try realm.write {
                object.name = "after"
                object.id = 2
            }
        }
        #expect(error?.code == Realm.Error.invalidInput)
        #expect(error?.message == "Primary key can't be changed after an object is inserted.")
        #expect(object.id == 1)
        #expect(object.name == "before", "the whole write is cancelled")
        #expect(realm.object(ofType: ErrKeyed.self, forPrimaryKey: 2) == nil)
        let dynamic = errCapture("primary key change through the dynamic API") {
            try realm.write { object["id"] = 3 }
        }
        #expect(dynamic?.message == "Primary key can't be changed after an object is inserted.")
        #expect(object.id == 1)
    }

    @Test("A set whose object value cannot be added makes write throw that failure, and the sets after it change nothing")
    func failedObjectValueInASet() throws {
        let mine = try Realm(configuration: confinementConfiguration("mine"))
        let other = try Realm(configuration: confinementConfiguration("other"))
        try mine.write { mine.add(NoteDog(value: ["id": 1, "name": "Rex", "age": 3])) }
        let stranger = NotePerson(value: ["id": 7, "name": "Ann"])
        try other.write { other.add(stranger) }
        let dog = mine.object(ofType: NoteDog.self, forPrimaryKey: 1)!
        let error = errCapture("a link to another Realm's object") {
            try mine.write {
                dog.owner = stranger
                dog.name = "after"
                dog.age = 9
            }
        }
        #expect(error?.code == Realm.Error.invalidInput)
        #expect(error?.message.hasPrefix("Object is already managed by another Realm") == true)
        #expect(dog.owner == nil && dog.name == "Rex" && dog.age == 3)
    }

    // MARK: Size limits

    @Test("A String of 16,777,199 UTF-8 bytes is stored; one of 16,777,200 makes write throw")
    func stringSizeLimit() throws {
        let realm = try errMemoryRealm()
        let largest = String(repeating: "a", count: 16_777_199)
        let object = ErrKeyed(value: ["id": 1] as [String: Any])
        try realm.write {
            realm.add(object)
            object.name = largest
        }
        #expect(object.name.utf8.count == 16_777_199)
        #expect(object.name == largest)

        let tooBig = String(repeating: "b", count: 16_777_200)
        let error = errCapture("oversized string") { try realm.write { object.name = tooBig } }
        #expect(error?.code == Realm.Error.invalidInput)
        #expect(error?.message.contains("too big") == true, "\(String(describing: error?.message))")
        #expect(object.name.utf8.count == 16_777_199, "the failed write changed nothing")

        // Multi-byte characters count in UTF-8 bytes: 5,592,400 × "€" (3 bytes) = 16,777,200 bytes.
        let multiByte = String(repeating: "€", count: 5_592_400)
        #expect(multiByte.utf8.count == 16_777_200)
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(ErrKeyed(value: ["id": 2, "name": multiByte] as [String: Any])) }
        }
        #expect(realm.object(ofType: ErrKeyed.self, forPrimaryKey: 2) == nil)

        // In a list too.
        #expect(throws: Realm.Error.self) { try realm.write { object.strings.append(tooBig) } }
        #expect(object.strings.isEmpty)
    }

    @Test("A Data of 16,777,200 bytes is stored; one of 16,777,201 makes write throw")
    func dataSizeLimit() throws {
        let realm = try errMemoryRealm()
        let object = ErrKeyed(value: ["id": 1] as [String: Any])
        try realm.write { realm.add(object) }
        try realm.write { object.blob = Data(repeating: 7, count: 16_777_200) }
        #expect(object.blob.count == 16_777_200)
        let error = errCapture("oversized data") {
            try realm.write { object.blob = Data(repeating: 8, count: 16_777_201) }
        }
        #expect(error?.code == Realm.Error.invalidInput)
        #expect(error?.message.contains("Binary too big") == true, "\(String(describing: error?.message))")
        #expect(object.blob.count == 16_777_200)
        #expect(object.blob.first == 7)
    }

    // MARK: Map keys

    @Test("A Map key starting with $ or containing . makes write throw; other keys, the empty key included, are allowed")
    func mapKeys() throws {
        let realm = try errMemoryRealm()
        let object = ErrKeyed(value: ["id": 1] as [String: Any])
        try realm.write { realm.add(object) }
        for (key, fragment) in [("$price", "must not start with '$'"), ("$", "must not start with '$'"),
                                ("a.b", "must not contain '.'"), (".", "must not contain '.'"),
                                ("end.", "must not contain '.'")] {
            let error = errCapture("map key \(key)") { try realm.write { object.scores[key] = 1 } }
            #expect(error?.code == Realm.Error.invalidInput, "key \(key)")
            #expect(error?.message.contains(fragment) == true, "key \(key): \(String(describing: error?.message))")
            #expect(object.scores.isEmpty, "key \(key)")
        }
        try realm.write {
            object.scores[""] = 1
            object.scores["a$"] = 2
            object.scores["price"] = 3
        }
        #expect(object.scores.count == 3)
        #expect(object.scores[""] == 1)
        #expect(object.scores["a$"] == 2)
    }

    @Test("A bad key in an unmanaged Map makes the write that adds its object throw")
    func unmanagedMapBadKey() throws {
        let realm = try errMemoryRealm()
        let object = ErrKeyed(value: ["id": 1] as [String: Any])
        object.scores["ok"] = 1
        object.scores["bad.key"] = 2
        let error = errCapture("adding an object whose map has a bad key") { try realm.write { realm.add(object) } }
        #expect(error?.code == Realm.Error.invalidInput)
        #expect(realm.objects(ErrKeyed.self).isEmpty)
    }

    // MARK: Other user errors

    @Test("Adding an object managed by another Realm makes write throw")
    func addFromAnotherRealm() throws {
        let first = try errMemoryRealm()
        let second = try errMemoryRealm()
        let object = ErrKeyed(value: ["id": 1] as [String: Any])
        try first.write { first.add(object) }
        let error = errCapture("cross-Realm add") { try second.write { second.add(object) } }
        #expect(error?.code == Realm.Error.invalidInput)
        #expect(second.objects(ErrKeyed.self).isEmpty)
    }

    @Test("create copies an object of another Realm given among its values, as Realm does; add refuses it")
    func createCopiesFromAnotherRealm() throws {
        let mine = try Realm(configuration: confinementConfiguration("mine"))
        let other = try Realm(configuration: confinementConfiguration("other"))
        let stranger = try other.write { other.create(NotePerson.self, value: ["id": 7, "name": "Ann"]) }
        let dog = try mine.write {
            mine.create(NoteDog.self, value: ["id": 1, "name": "Rex", "owner": stranger] as [String: Any])
        }
        let owner = try #require(dog.owner)
        #expect(owner.name == "Ann" && owner.realm == mine && !owner.isSameObject(as: stranger))
        #expect(mine.objects(NotePerson.self).count == 1 && other.objects(NotePerson.self).count == 1)
        let copied = try mine.write { mine.create(NotePerson.self, value: stranger, update: .modified) }
        #expect(copied.isSameObject(as: owner), "the copy updates the object with its primary key")
    }

    @Test("Adding a deleted object makes write throw")
    func addDeletedObject() throws {
        let realm = try errMemoryRealm()
        let object = ErrKeyed(value: ["id": 1] as [String: Any])
        try realm.write { realm.add(object) }
        try realm.write { realm.delete(object) }
        let error = errCapture("adding a deleted object") { try realm.write { realm.add(object) } }
        #expect(error?.code == Realm.Error.invalidInput)
    }

    @Test("A Realm.Error describes itself with its code and message")
    func errorDescription() {
        let error = Realm.Error(Realm.Error.invalidInput, "bad thing", path: "/tmp/x.strata")
        #expect(error.localizedDescription == "bad thing")
        #expect(error.description.contains("invalidInput"))
        #expect(error.description.contains("bad thing"))
        #expect(error.description.contains("/tmp/x.strata"))
        #expect(Realm.Error.fileNotFound != Realm.Error.invalidDatabase)
    }

    // MARK: Programmer errors

    @Test("Setting a property of a managed object outside a write traps with Realm's message")
    func setOutsideWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "exit-set", objectTypes: [ErrKeyed.self]))
            let object = ErrKeyed()
            try realm.write { realm.add(object) }
            print("managed; now setting outside a write")
            object.name = "outside"
            // Reaching this line means no trap: exit cleanly so that the expectation fails.
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Attempting to modify object outside of a write transaction"), "\(stderr)")
    }

    @Test("Adding an object outside a write traps with Realm's message")
    func addOutsideWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "exit-add", objectTypes: [ErrKeyed.self]))
            realm.add(ErrKeyed())
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("write transaction"), "\(stderr)")
    }
}
