import Foundation
@testable import Strata
import Testing

// Migrations that must fail, and `deleteRealmIfMigrationNeeded` (REALM-SEMANTICS.md §1.2).
// Models and helpers are in MigrationTests.swift.

/// Changes `age` from Int to Date.
final class MigPersonAgeDate: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Date
}

/// Makes `firstName` the primary key.
final class MigPersonKeyed: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted(primaryKey: true) var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
}

/// Moves the primary key to `lastName`.
final class MigPersonKeyedByLastName: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var firstName: String
    @Persisted(primaryKey: true) var lastName: String
    @Persisted var age: Int
}

/// Version 1 of "MigKeyed": an Int primary key.
final class MigKeyedV1: Object {
    override class func className() -> String { "MigKeyed" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

/// Same key, one more property.
final class MigKeyedV2: Object {
    override class func className() -> String { "MigKeyed" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var extra: Int
}

/// The primary key renamed from `id` to `key`.
final class MigKeyedRenamed: Object {
    override class func className() -> String { "MigKeyed" }
    @Persisted(primaryKey: true) var key: Int
    @Persisted var name: String
}

/// No primary key any more.
final class MigKeyedNoKey: Object {
    override class func className() -> String { "MigKeyed" }
    @Persisted var id: Int
    @Persisted var name: String
}

/// Opens `configuration` expecting a `Realm.Error`, and returns it.
func expectOpenError(_ file: MigrationFile, _ configuration: Realm.Configuration,
                     sourceLocation: SourceLocation = #_sourceLocation) -> Realm.Error? {
    #expect(throws: Realm.Error.self, sourceLocation: sourceLocation) {
        try file.open(configuration)
    }
}

/// Writes MigPerson objects with duplicate first names.
func seedDuplicateFirstNames(_ file: MigrationFile) throws {
    try file.write([MigPersonV1.self]) { realm in
        realm.add(MigPersonV1(value: ["firstName": "Sam", "lastName": "One", "age": 1]))
        realm.add(MigPersonV1(value: ["firstName": "Sam", "lastName": "Two", "age": 2]))
        realm.add(MigPersonV1(value: ["firstName": "Kim", "lastName": "Three", "age": 3]))
    }
}

/// Writes MigKeyed objects 1, 2 and 3.
func seedKeyed(_ file: MigrationFile) throws {
    try file.write([MigKeyedV1.self]) { realm in
        for id in 1...3 { realm.add(MigKeyedV1(value: ["id": id, "name": "n\(id)"])) }
    }
}

@Suite("Migration errors")
struct MigrationErrorTests {
    // MARK: Schema mismatch

    @Test("a schema change without a version bump throws schemaMismatch naming the change")
    func addedPropertyWithoutBump() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self]) { _, old in log.recordCall(oldVersion: old) }
        let error = expectOpenError(file, configuration)
        #expect(error?.code == Realm.Error.schemaMismatch)
        #expect(error?.message == "Migration is required due to the following errors:\n- Property 'MigPerson.fullName' has been added.")
        #expect(log.calls.isEmpty)
        // Nothing changed in the file: version 1 still opens and has its data.
        let count = try file.open(file.configuration([MigPersonV1.self])) { realm in realm.objects(MigPersonV1.self).count }
        #expect(count == 3)
    }

    @Test("the mismatch message lists removals, type changes and optionality changes")
    func mismatchListsEveryChange() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let removed = expectOpenError(file, file.configuration([MigPersonWithoutAge.self]))
        #expect(removed?.code == Realm.Error.schemaMismatch)
        #expect(removed?.message.contains("- Property 'MigPerson.age' has been removed.") == true)

        let retyped = expectOpenError(file, file.configuration([MigPersonAgeString.self]))
        #expect(retyped?.message.contains("- Property 'MigPerson.age' has been changed from 'int' to 'string'.") == true)

        let optional = expectOpenError(file, file.configuration([MigPersonOptional.self]))
        #expect(optional?.message.contains("- Property 'MigPerson.firstName' has been made optional.") == true)
        #expect(optional?.message.contains("- Property 'MigPerson.age' has been made optional.") == true)

        let renamed = expectOpenError(file, file.configuration([MigPersonRenamed.self]))
        #expect(renamed?.message.contains("- Property 'MigPerson.givenName' has been added.") == true)
        #expect(renamed?.message.contains("- Property 'MigPerson.firstName' has been removed.") == true)
    }

    @Test("the mismatch message for making a property required")
    func mismatchMadeRequired() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigOptV1.self]) { realm in realm.add(MigOptV1()) }
        let error = expectOpenError(file, file.configuration([MigOptV2.self]))
        #expect(error?.code == Realm.Error.schemaMismatch)
        #expect(error?.message.contains("- Property 'MigOpt.name' has been made required.") == true)
        #expect(error?.message.contains("- Property 'MigOpt.count' has been made required.") == true)
    }

    @Test("the mismatch message names types as Realm does ('date')")
    func mismatchTypeNames() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let error = expectOpenError(file, file.configuration([MigPersonAgeDate.self]))
        #expect(error?.code == Realm.Error.schemaMismatch)
        #expect(error?.message.contains("- Property 'MigPerson.age' has been changed from 'int' to 'date'.") == true)
    }

    @Test("the mismatch messages for primary key changes are Realm's")
    func mismatchPrimaryKeyMessages() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigPersonV1.self]) { realm in
            realm.add(MigPersonV1(value: ["firstName": "A", "lastName": "B"]))
        }
        let added = expectOpenError(file, file.configuration([MigPersonKeyed.self]))
        #expect(added?.code == Realm.Error.schemaMismatch)
        #expect(added?.message == "Migration is required due to the following errors:\n- Primary Key for class 'MigPerson' has been added.")

        try file.open(file.configuration([MigPersonKeyed.self], version: 1))
        let changed = expectOpenError(file, file.configuration([MigPersonKeyedByLastName.self], version: 1))
        #expect(changed?.message == "Migration is required due to the following errors:\n- Primary Key for class 'MigPerson' has changed from 'firstName' to 'lastName'.")
        let removed = expectOpenError(file, file.configuration([MigPersonV1.self], version: 1))
        #expect(removed?.message == "Migration is required due to the following errors:\n- Primary Key for class 'MigPerson' has been removed.")
    }

    @Test("opening with a lower schema version than the file's throws")
    func lowerVersionThrows() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file, version: 2)
        let log = MigrationLog()
        let error = expectOpenError(file, file.configuration([MigPersonV1.self], version: 1) { _, old in
            log.recordCall(oldVersion: old)
        })
        #expect(error?.code == Realm.Error.schemaMismatch)
        #expect(error?.message == "Provided schema version 1 is less than last set version 2.")
        #expect(log.calls.isEmpty)
        let stored = try file.open(file.configuration([MigPersonV1.self], version: 2)) { realm in realm.storedSchemaVersion }
        #expect(stored == 2)
    }

    @Test("after a failed open, bumping the version migrates")
    func retryAfterMismatch() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        _ = expectOpenError(file, file.configuration([MigPersonWithFullName.self]))
        let names = try file.open(file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                newObject?["fullName"] = oldObject?["lastName"]
            }
        }) { realm in realm.objects(MigPersonWithFullName.self).map(\.fullName).sorted() }
        #expect(names == ["Hopper", "Lovelace", "Turing"])
    }

    @Test("a read-only Realm that needs a migration fails to open without calling the block")
    func readOnlyNeedsMigration() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        var configuration = file.configuration([MigPersonWithFullName.self], version: 1) { _, old in
            log.recordCall(oldVersion: old)
        }
        configuration.readOnly = true
        let error = expectOpenError(file, configuration)
        #expect(error?.code == Realm.Error.schemaMismatch)
        #expect(log.calls.isEmpty)
        let state = try file.open(file.configuration([MigPersonV1.self])) { realm in
            (realm.objects(MigPersonV1.self).count, realm.storedSchemaVersion)
        }
        #expect(state.0 == 3)
        #expect(state.1 == 0)
    }

    // MARK: Primary keys

    @Test("making a property with duplicate values the primary key fails to open and changes nothing")
    func duplicatePrimaryKeyAfterMigration() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedDuplicateFirstNames(file)
        let error = expectOpenError(file, file.configuration([MigPersonKeyed.self], version: 1))
        #expect(error?.message == "Primary key property 'MigPerson.firstName' has duplicate values after migration.")
        // The failed migration was rolled back: version 0, old schema, old data.
        let state = try file.open(file.configuration([MigPersonV1.self])) { realm in
            (realm.storedSchemaVersion, realm.objects(MigPersonV1.self).map(\.lastName).sorted(),
             realm.readSnapshot.table(named: "MigPerson")?.schema.primaryKey)
        }
        #expect(state.0 == 0)
        #expect(state.1 == ["One", "Three", "Two"])
        #expect(state.2 == nil)
    }

    @Test("a block that removes the duplicates lets the new primary key apply")
    func blockRemovesDuplicates() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedDuplicateFirstNames(file)
        let configuration = file.configuration([MigPersonKeyed.self], version: 1) { migration, _ in
            var seen = Set<String>()
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                guard let name = oldObject?["firstName"] as? String, let newObject else { return }
                if !seen.insert(name).inserted { migration.delete(newObject) }
            }
        }
        let result = try file.open(configuration) { realm in
            (realm.objects(MigPersonKeyed.self).map(\.firstName).sorted(),
             realm.object(ofType: MigPersonKeyed.self, forPrimaryKey: "Kim")?.lastName,
             realm.readSnapshot.table(named: "MigPerson")?.schema.primaryKey)
        }
        #expect(result.0 == ["Kim", "Sam"])
        #expect(result.1 == "Three")
        #expect(result.2 == "firstName")
    }

    @Test("a block that makes the values unique lets the new primary key apply")
    func blockMakesValuesUnique() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedDuplicateFirstNames(file)
        let configuration = file.configuration([MigPersonKeyed.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                newObject?["firstName"] = "\(oldObject?["firstName"] as? String ?? "") \(oldObject?["lastName"] as? String ?? "")"
            }
        }
        let found = try file.open(configuration) { realm in
            // A duplicate key is refused after the migration.
            #expect(throws: Realm.Error.self) {
                try realm.write { realm.add(MigPersonKeyed(value: ["firstName": "Sam One"])) }
            }
            return realm.object(ofType: MigPersonKeyed.self, forPrimaryKey: "Sam Two")?.age
        }
        #expect(found == 2)
    }

    @Test("renaming the primary key property keeps the keys")
    func renamePrimaryKey() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedKeyed(file)
        let configuration = file.configuration([MigKeyedRenamed.self], version: 1) { migration, _ in
            migration.renameProperty(onType: "MigKeyed", from: "id", to: "key")
        }
        let result = try file.open(configuration) { realm in
            (realm.object(ofType: MigKeyedRenamed.self, forPrimaryKey: 2)?.name,
             realm.objects(MigKeyedRenamed.self).map(\.key).sorted(),
             realm.readSnapshot.table(named: "MigKeyed")?.schema.primaryKey)
        }
        #expect(result.0 == "n2")
        #expect(result.1 == [1, 2, 3])
        #expect(result.2 == "key")
    }

    @Test("a renamed primary key without renameProperty leaves duplicate defaults and fails")
    func renamedPrimaryKeyWithoutRenameFails() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedKeyed(file)
        let error = expectOpenError(file, file.configuration([MigKeyedRenamed.self], version: 1))
        #expect(error?.message == "Primary key property 'MigKeyed.key' has duplicate values after migration.")
    }

    @Test("removing the primary key allows duplicate values afterwards")
    func removedPrimaryKey() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedKeyed(file)
        let ids = try file.open(file.configuration([MigKeyedNoKey.self], version: 1)) { realm in
            try realm.write { realm.add(MigKeyedNoKey(value: ["id": 1, "name": "again"])) }
            return realm.objects(MigKeyedNoKey.self).map(\.id).sorted()
        }
        #expect(ids == [1, 1, 2, 3])
    }

    @Test("an existing primary key's values may be swapped inside the block")
    func swapPrimaryKeysInBlock() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedKeyed(file)
        let configuration = file.configuration([MigKeyedV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigKeyed") { oldObject, newObject in
                // 1 → 2, 2 → 3, 3 → 1: every step collides with a key not yet moved.
                let id = oldObject?["id"] as? Int ?? 0
                newObject?["id"] = id % 3 + 1
            }
        }
        let names = try file.open(configuration) { realm in
            (1...3).map { realm.object(ofType: MigKeyedV2.self, forPrimaryKey: $0)?.name }
        }
        #expect(names == ["n3", "n1", "n2"])
    }

    @Test("duplicate values of an existing primary key left by the block fail the open")
    func duplicateExistingPrimaryKey() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedKeyed(file)
        let configuration = file.configuration([MigKeyedV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigKeyed") { _, newObject in newObject?["id"] = 7 }
        }
        let error = expectOpenError(file, configuration)
        #expect(error?.message == "Primary key property 'MigKeyed.id' has duplicate values after migration.")
        let ids = try file.open(file.configuration([MigKeyedV1.self])) { realm in
            realm.objects(MigKeyedV1.self).map(\.id).sorted()
        }
        #expect(ids == [1, 2, 3])
    }

    @Test("creating an object with a taken primary key in the block fails the open")
    func createDuplicateKeyInBlock() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedKeyed(file)
        let configuration = file.configuration([MigKeyedV2.self], version: 1) { migration, _ in
            migration.create("MigKeyed", value: ["id": 2, "name": "dup"])
        }
        _ = expectOpenError(file, configuration)
        let names = try file.open(file.configuration([MigKeyedV1.self])) { realm in
            realm.objects(MigKeyedV1.self).map(\.name).sorted()
        }
        #expect(names == ["n1", "n2", "n3"])
    }

    @Test("renameProperty with a property that does not exist fails the open and changes nothing")
    func renameMissingPropertyFails() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let configuration = file.configuration([MigPersonRenamed.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { _, newObject in newObject?["age"] = 0 }
            migration.renameProperty(onType: "MigPerson", from: "noSuchProperty", to: "givenName")
        }
        _ = expectOpenError(file, configuration)
        let state = try file.open(file.configuration([MigPersonV1.self])) { realm in
            (realm.objects(MigPersonV1.self).map(\.age).sorted(), realm.storedSchemaVersion)
        }
        #expect(state.0 == [36, 41, 85])
        #expect(state.1 == 0)
    }

    // MARK: deleteRealmIfMigrationNeeded

    @Test("deleteRealmIfMigrationNeeded wipes the data on a schema change without calling the block")
    func deleteIfNeededOnSchemaChange() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        try file.write([MigA.self]) { realm in realm.add(MigA(value: ["value": 1])) }
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1, deleteIfNeeded: true) { _, old in
            log.recordCall(oldVersion: old)
        }
        let state = try file.open(configuration) { realm in
            try realm.write { realm.add(MigPersonWithFullName(value: ["firstName": "New", "fullName": "New Person"])) }
            return (realm.objects(MigPersonWithFullName.self).map(\.fullName), realm.storedSchemaVersion,
                    realm.storedColumns(of: "MigA"))
        }
        #expect(log.calls.isEmpty)
        #expect(state.0 == ["New Person"])
        #expect(state.1 == 1)
        // The whole file was recreated, so classes outside the new schema are gone too.
        #expect(state.2 == nil)
    }

    @Test("deleteRealmIfMigrationNeeded wipes the data on a schema change at the same version")
    func deleteIfNeededSameVersion() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let count = try file.open(file.configuration([MigPersonWithFullName.self], deleteIfNeeded: true)) { realm in
            realm.objects(MigPersonWithFullName.self).count
        }
        #expect(count == 0)
    }

    @Test("deleteRealmIfMigrationNeeded keeps the data when nothing changed")
    func deleteIfNeededNoChange() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file, version: 1)
        let count = try file.open(file.configuration([MigPersonV1.self], version: 1, deleteIfNeeded: true)) { realm in
            realm.objects(MigPersonV1.self).count
        }
        #expect(count == 3)
        let indexed = try file.open(file.configuration([MigPersonIndexed.self], version: 1, deleteIfNeeded: true)) { realm in
            realm.objects(MigPersonIndexed.self).count
        }
        #expect(indexed == 3)
    }

    @Test("deleteRealmIfMigrationNeeded wipes the data when only the schema version changed")
    func deleteIfNeededVersionOnly() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonV1.self], version: 1, deleteIfNeeded: true) { _, old in
            log.recordCall(oldVersion: old)
        }
        let state = try file.open(configuration) { realm in
            (realm.objects(MigPersonV1.self).count, realm.storedSchemaVersion)
        }
        #expect(log.calls.isEmpty)
        #expect(state.0 == 0)
        #expect(state.1 == 1)
    }

    @Test("deleteRealmIfMigrationNeeded wipes the data instead of throwing on a lower schema version")
    func deleteIfNeededLowerVersion() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file, version: 3)
        let state = try file.open(file.configuration([MigPersonV1.self], version: 1, deleteIfNeeded: true)) { realm in
            (realm.objects(MigPersonV1.self).count, realm.storedSchemaVersion)
        }
        #expect(state.0 == 0)
        #expect(state.1 == 1)
    }
}
