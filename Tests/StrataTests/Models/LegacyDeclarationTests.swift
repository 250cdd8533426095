import Foundation
@testable import Strata
import Testing

// Realm Swift's declarations from before @Persisted: honoured where they name @Persisted
// properties, reported at schema discovery (with the @Persisted spelling) where they would
// otherwise silently not be stored.

final class LegacyKeyed: Object {
    @Persisted var taskId: Int
    @Persisted var title: String
    override class func primaryKey() -> String? { "taskId" }
}

final class LegacyIndexed: Object {
    @Persisted var name: String
    @Persisted var age: Int
    override class func indexedProperties() -> [String] { ["name"] }
}

final class LegacyMissingKey: Object {
    @Persisted var title: String
    override static func primaryKey() -> String? { "taskId" }
}

final class LegacyUnwrappedList: Object {
    @Persisted var name: String
    let items = List<String>()
}

final class LegacyOwner: Object {
    @Persisted var pet: LegacyPet?
}

final class LegacyPet: Object {
    @Persisted var name: String
    let owners = LinkingObjects(fromType: LegacyOwner.self, property: "pet")
}

final class LegacyObjcStyle: Object {
    var name = ""
    var age = 0
}

final class LegacyIgnoredPersisted: Object {
    @Persisted var name: String
    @Persisted var cache: String
    override class func ignoredProperties() -> [String] { ["cache"] }
}

final class LegacyIgnoredPlain: Object {
    @Persisted var name: String
    var transient = 0
    override class func ignoredProperties() -> [String] { ["transient"] }
}

final class LegacyNoKey: Object {
    @Persisted var name: String
}

@Suite("Legacy Realm Swift model declarations")
struct LegacyDeclarationTests {
    private func open(_ types: [ObjectBase.Type]) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "legacy-\(UUID().uuidString)",
                                                     objectTypes: types))
    }

    /// The schema error opening a Realm with `types` throws.
    private func schemaError(_ types: [ObjectBase.Type]) -> Realm.Error? {
        do {
            _ = try open(types)
            return nil
        } catch let error as Realm.Error {
            return error
        } catch {
            return nil
        }
    }

    @Test("override class func primaryKey() naming a @Persisted property makes it the primary key")
    func legacyPrimaryKeyIsHonoured() throws {
        #expect(LegacyKeyed.primaryKey() == "taskId")
        let realm = try open([LegacyKeyed.self])
        #expect(realm.schema["LegacyKeyed"]?.primaryKeyProperty?.name == "taskId")
        try realm.write {
            realm.add(LegacyKeyed(value: ["taskId": 1, "title": "a"]))
            realm.add(LegacyKeyed(value: ["taskId": 1, "title": "b"]), update: .modified)
        }
        #expect(realm.objects(LegacyKeyed.self).count == 1)
        #expect(realm.object(ofType: LegacyKeyed.self, forPrimaryKey: 1)?.title == "b")
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(LegacyKeyed(value: ["taskId": 1])) }
        }
    }

    @Test("override class func indexedProperties() indexes the named @Persisted properties")
    func legacyIndexedPropertiesAreHonoured() throws {
        let realm = try open([LegacyIndexed.self])
        let properties = try #require(realm.schema["LegacyIndexed"]).properties
        #expect(properties.first { $0.name == "name" }?.isIndexed == true)
        #expect(properties.first { $0.name == "age" }?.isIndexed == false)
    }

    @Test("primaryKey() naming no @Persisted property is a schema error that says how to declare it")
    func legacyPrimaryKeyWithoutPersistedProperty() throws {
        let error = try #require(schemaError([LegacyMissingKey.self]))
        #expect(error.code == Realm.Error.invalidSchema)
        #expect(error.message.contains("LegacyMissingKey"), "\(error.message)")
        #expect(error.message.contains("@Persisted(primaryKey: true) var taskId"), "\(error.message)")
    }

    @Test("let items = List<T>() without @Persisted is a schema error naming class, property and the fix")
    func unwrappedListIsReported() throws {
        let error = try #require(schemaError([LegacyUnwrappedList.self]))
        #expect(error.code == Realm.Error.invalidSchema)
        #expect(error.message.contains("LegacyUnwrappedList.items"), "\(error.message)")
        #expect(error.message.contains("@Persisted var items: List<String>"), "\(error.message)")
    }

    @Test("LinkingObjects(fromType:property:) without @Persisted is a schema error with the originProperty spelling")
    func unwrappedLinkingObjectsAreReported() throws {
        let error = try #require(schemaError([LegacyPet.self]))
        #expect(error.code == Realm.Error.invalidSchema)
        #expect(error.message.contains("LegacyPet.owners"), "\(error.message)")
        #expect(error.message.contains(#"@Persisted(originProperty: "pet") var owners: LinkingObjects<LegacyOwner>"#),
                "\(error.message)")
    }

    @Test("A class with stored properties but no @Persisted one (former @objc dynamic) is a schema error")
    func objcStyleClassIsReported() throws {
        let error = try #require(schemaError([LegacyObjcStyle.self]))
        #expect(error.code == Realm.Error.invalidSchema)
        #expect(error.message.contains("LegacyObjcStyle.name"), "\(error.message)")
        #expect(error.message.contains("@Persisted var name: String"), "\(error.message)")
    }

    @Test("ignoredProperties() naming a @Persisted property is a schema error; naming a plain one is fine")
    func ignoredProperties() throws {
        let error = try #require(schemaError([LegacyIgnoredPersisted.self]))
        #expect(error.message.contains("LegacyIgnoredPersisted.cache"), "\(error.message)")
        let realm = try open([LegacyIgnoredPlain.self])
        #expect(realm.schema["LegacyIgnoredPlain"]?.properties.map(\.name) == ["name"])
    }

    @Test("add(_:update: .modified) on a class without a primary key traps with Realm's message")
    func updateWithoutPrimaryKeyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "legacy-no-key",
                                                                      objectTypes: [LegacyNoKey.self]))
            try! realm.write { realm.add(LegacyNoKey(), update: .modified) }
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("'LegacyNoKey' does not have a primary key and can not be updated"), "\(output)")
        await #expect(processExitsWith: .failure) {
            let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "legacy-no-key-all",
                                                                      objectTypes: [LegacyNoKey.self]))
            try! realm.write { realm.add(LegacyNoKey(), update: .all) }
        }
    }
}
