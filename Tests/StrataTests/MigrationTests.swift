import Foundation
@testable import Strata
import Testing

// Schema migrations, as Realm Swift's `Migration` (REALM-SEMANTICS.md §1.2, §1.10).
//
// Each schema version of a class is its own Swift class; the versions share one schema name by
// overriding `className()`. A test writes data with the old classes, drops every reference to the
// Realm (the helpers open and release it inside a function), then reopens the same file with the
// new classes, a higher schema version and a migration block.

// MARK: - Model versions

/// Version 1 of "MigPerson".
final class MigPersonV1: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
}

/// Adds `fullName`.
final class MigPersonWithFullName: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
    @Persisted var fullName: String
}

/// Removes `age`.
final class MigPersonWithoutAge: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var firstName: String
    @Persisted var lastName: String
}

/// Renames `firstName` to `givenName`.
final class MigPersonRenamed: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var givenName: String
    @Persisted var lastName: String
    @Persisted var age: Int
}

/// Makes `firstName` and `age` optional.
final class MigPersonOptional: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var firstName: String?
    @Persisted var lastName: String
    @Persisted var age: Int?
}

/// Changes `age` from Int to String.
final class MigPersonAgeString: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: String
}

/// Indexes `firstName` (no migration needed).
final class MigPersonIndexed: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted(indexed: true) var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
}

/// Declares the properties of version 1 in another order (no migration needed).
final class MigPersonReordered: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var age: Int
    @Persisted var lastName: String
    @Persisted var firstName: String
}

/// Version 3 of the chain V1 → WithFullName → this: drops `firstName`/`lastName`.
final class MigPersonV3: Object {
    override class func className() -> String { "MigPerson" }
    @Persisted var fullName: String
    @Persisted var age: Int
    @Persisted var isAdult: Bool
}

/// Version 1 of "MigDefaults".
final class MigDefaultsV1: Object {
    override class func className() -> String { "MigDefaults" }
    @Persisted var name: String
    @Persisted var tags: List<String>
}

/// Adds one property of each common kind; `score` has a Swift initial value.
final class MigDefaultsV2: Object {
    override class func className() -> String { "MigDefaults" }
    @Persisted var name: String
    @Persisted var tags: List<String>
    @Persisted var count: Int
    @Persisted var score = 7
    @Persisted var label: String
    @Persisted var note: String?
    @Persisted var optionalCount: Int?
    @Persisted var flag: Bool
    @Persisted var ratio: Double
    @Persisted var born: Date
    @Persisted var blob: Data
    @Persisted var scores: List<Int>
}

/// Version 1 of "MigOpt": optional properties.
final class MigOptV1: Object {
    override class func className() -> String { "MigOpt" }
    @Persisted var name: String?
    @Persisted var count: Int?
}

/// Makes both properties of "MigOpt" required.
final class MigOptV2: Object {
    override class func className() -> String { "MigOpt" }
    @Persisted var name: String
    @Persisted var count: Int
}

/// Two independent classes, for adding and removing a class.
final class MigA: Object {
    @Persisted var value: Int
}

final class MigB: Object {
    @Persisted var value: Int
}

/// Version 1 of "MigOwner" → "MigDog".
final class MigOwnerV1: Object {
    override class func className() -> String { "MigOwner" }
    @Persisted var name: String
    @Persisted var dog: MigDogV1?
}

final class MigDogV1: Object {
    override class func className() -> String { "MigDog" }
    @Persisted var name: String
}

/// Version 2: "MigDog" gains `age`.
final class MigOwnerV2: Object {
    override class func className() -> String { "MigOwner" }
    @Persisted var name: String
    @Persisted var dog: MigDogV2?
}

final class MigDogV2: Object {
    override class func className() -> String { "MigDog" }
    @Persisted var name: String
    @Persisted var age: Int
}

/// Version 3: "MigDog" gains a computed `owners` backlink (no migration needed).
final class MigOwnerV3: Object {
    override class func className() -> String { "MigOwner" }
    @Persisted var name: String
    @Persisted var dog: MigDogWithOwners?
}

final class MigDogWithOwners: Object {
    override class func className() -> String { "MigDog" }
    @Persisted var name: String
    @Persisted(originProperty: "dog") var owners: LinkingObjects<MigOwnerV3>
}

// MARK: - Helpers

/// Collects what a migration block saw; migration blocks are `@Sendable`.
final class MigrationLog: @unchecked Sendable {
    // Safety: every access goes through `lock`.
    private let lock = NSLock()
    private var entries: [String] = []
    private var versions: [UInt64] = []

    func record(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    func recordCall(oldVersion: UInt64) {
        lock.lock()
        versions.append(oldVersion)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    /// The old schema versions the block was called with, one per call.
    var calls: [UInt64] {
        lock.lock()
        defer { lock.unlock() }
        return versions
    }
}

/// A Realm file in a fresh temporary directory; every helper opens the Realm, uses it and drops
/// it before returning, so the next open runs the schema setup again.
struct MigrationFile {
    let directory: URL
    let url: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-migration-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("migration.strata")
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    func configuration(_ types: [ObjectBase.Type], version: UInt64 = 0, deleteIfNeeded: Bool = false,
                       block: Realm.MigrationBlock? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: version, migrationBlock: block,
                            deleteRealmIfMigrationNeeded: deleteIfNeeded, objectTypes: types)
    }

    /// Opens the file with `types` at `version` and runs `body` in one write transaction.
    func write(_ types: [ObjectBase.Type], version: UInt64 = 0, _ body: (Realm) throws -> Void) throws {
        let realm = try Realm(configuration: configuration(types, version: version))
        try realm.write { try body(realm) }
    }

    /// Opens the file with `configuration`, runs `body` and drops the Realm. `body` must return
    /// plain values, not managed objects.
    @discardableResult
    func open<R>(_ configuration: Realm.Configuration, _ body: (Realm) throws -> R) throws -> R {
        let realm = try Realm(configuration: configuration)
        return try body(realm)
    }

    /// Opens the file with `configuration` and drops the Realm at once.
    func open(_ configuration: Realm.Configuration) throws {
        _ = try Realm(configuration: configuration)
    }
}

extension Realm {
    /// The schema version stored in the file.
    var storedSchemaVersion: UInt64? { SchemaSetup.storedSchemaVersion(in: readSnapshot) }

    /// The stored column names of the table of `className`, or nil without a table.
    func storedColumns(of className: String) -> [String]? {
        readSnapshot.table(named: className)?.schema.columns.map(\.name)
    }
}

/// Writes three MigPerson objects at schema version `version`.
func seedPeople(_ file: MigrationFile, version: UInt64 = 0) throws {
    try file.write([MigPersonV1.self], version: version) { realm in
        realm.add(MigPersonV1(value: ["firstName": "Ada", "lastName": "Lovelace", "age": 36]))
        realm.add(MigPersonV1(value: ["firstName": "Alan", "lastName": "Turing", "age": 41]))
        realm.add(MigPersonV1(value: ["firstName": "Grace", "lastName": "Hopper", "age": 85]))
    }
}

// MARK: - Tests

@Suite("Migration")
struct MigrationTests {
    // MARK: Class names

    @Test("two Swift classes overriding className() share one schema name")
    func classNameOverride() throws {
        #expect(MigPersonV1.className() == "MigPerson")
        #expect(try ClassInfo.of(MigPersonV1.self).className == "MigPerson")
        #expect(try ClassInfo.of(MigPersonWithFullName.self).className == "MigPerson")
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let tables = try file.open(file.configuration([MigPersonV1.self])) { realm in
            realm.readSnapshot.allTables.map(\.schema.name).filter { !$0.hasPrefix("__") }
        }
        #expect(tables == ["MigPerson"])
    }

    @Test("realm.schema lists the configured classes right after opening")
    func realmSchemaAfterOpen() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let names = try file.open(file.configuration([MigPersonWithFullName.self, MigA.self], version: 1)) { realm in
            realm.schema.objectSchema.map(\.className)
        }
        #expect(names == ["MigA", "MigPerson"])
    }

    // MARK: Adding properties

    @Test("an added property gives existing objects the type's zero value, not the Swift initial value")
    func addedPropertiesGetZeroValues() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigDefaultsV1.self]) { realm in
            let object = MigDefaultsV1(value: ["name": "first"])
            object.tags.append(objectsIn: ["a", "b"])
            realm.add(object)
        }
        try file.open(file.configuration([MigDefaultsV2.self], version: 1)) { realm in
            let objects = Array(realm.objects(MigDefaultsV2.self))
            try #require(objects.count == 1)
            let object = objects[0]
            #expect(object.name == "first")
            #expect(Array(object.tags) == ["a", "b"])
            #expect(object.count == 0)
            #expect(object.score == 0)
            #expect(object.label == "")
            #expect(object.note == nil)
            #expect(object.optionalCount == nil)
            #expect(object.flag == false)
            #expect(object.ratio == 0)
            #expect(object.born == Date(timeIntervalSince1970: 0))
            #expect(object.blob == Data())
            #expect(object.scores.isEmpty)
            // Objects created after the migration get the Swift initial value.
            let fresh = MigDefaultsV2(value: ["name": "second"])
            try realm.write { realm.add(fresh) }
            #expect(fresh.score == 7)
            #expect(realm.objects(MigDefaultsV2.self).count == 2)
        }
    }

    @Test("the block fills an added property from old values with enumerateObjects")
    func blockFillsAddedProperty() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, oldVersion in
            log.recordCall(oldVersion: oldVersion)
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                guard let oldObject, let newObject else {
                    log.record("missing object")
                    return
                }
                // The old object has no fullName; the new one starts at the default.
                log.record("old fullName: \(oldObject["fullName"].map { "\($0)" } ?? "nil")")
                log.record("new fullName: '\(newObject["fullName"] as? String ?? "nil")'")
                let first = oldObject["firstName"] as? String ?? "?"
                let last = oldObject["lastName"] as? String ?? "?"
                newObject["fullName"] = first + " " + last
            }
        }
        let people = try file.open(configuration) { realm in
            realm.objects(MigPersonWithFullName.self).map { ($0.fullName, $0.firstName, $0.age) }
                .sorted { $0.2 < $1.2 }
        }
        #expect(log.calls == [0])
        #expect(log.all.filter { $0 == "old fullName: nil" }.count == 3)
        #expect(log.all.filter { $0 == "new fullName: ''" }.count == 3)
        #expect(!log.all.contains("missing object"))
        #expect(people.map(\.0) == ["Ada Lovelace", "Alan Turing", "Grace Hopper"])
        #expect(people.map(\.1) == ["Ada", "Alan", "Grace"])
        #expect(people.map(\.2) == [36, 41, 85])
    }

    @Test("old and new objects read every kind of value, and links as migration objects")
    func enumerateReadsValuesAndLinks() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigOwnerV1.self, MigDogV1.self]) { realm in
            realm.add(MigOwnerV1(value: ["name": "Ann", "dog": MigDogV1(value: ["name": "Rex"])]))
            realm.add(MigOwnerV1(value: ["name": "Bob"]))
        }
        let log = MigrationLog()
        let configuration = file.configuration([MigOwnerV2.self, MigDogV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigOwner") { oldObject, newObject in
                let name = oldObject?["name"] as? String ?? "?"
                if let dog = oldObject?["dog"] as? MigrationObject {
                    log.record("\(name) old dog \(dog["name"] as? String ?? "?")")
                } else {
                    log.record("\(name) old dog nil")
                }
                if let dog = newObject?["dog"] as? MigrationObject {
                    dog["age"] = 5
                } else if let newObject {
                    // An owner without a dog gets one created in the migration.
                    newObject["dog"] = migration.create("MigDog", value: ["name": "Fido", "age": 2])
                }
            }
        }
        let owners = try file.open(configuration) { realm in
            // Query the dogs first: following a link to a class not queried yet is a separate bug
            // (see linkReadAfterReopen).
            _ = realm.objects(MigDogV2.self).count
            return realm.objects(MigOwnerV2.self).map { ($0.name, $0.dog?.name, $0.dog?.age) }.sorted { $0.0 < $1.0 }
        }
        #expect(Set(log.all) == ["Ann old dog Rex", "Bob old dog nil"])
        try #require(owners.count == 2)
        #expect(owners[0] == ("Ann", "Rex", 5))
        #expect(owners[1] == ("Bob", "Fido", 2))
    }

    @Test("after reopening, a link is read as its object before the target class was queried")
    func linkReadAfterReopen() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigOwnerV1.self, MigDogV1.self]) { realm in
            realm.add(MigOwnerV1(value: ["name": "Ann", "dog": MigDogV1(value: ["name": "Rex"])]))
            realm.add(MigOwnerV1(value: ["name": "Bob"]))
        }
        let dogs = try file.open(file.configuration([MigOwnerV1.self, MigDogV1.self])) { realm in
            realm.objects(MigOwnerV1.self).map { owner in
                "\(owner.name): \(owner.dog.map { "\($0.name) managed=\($0.realm != nil)" } ?? "nil")"
            }.sorted()
        }
        #expect(dogs == ["Ann: Rex managed=true", "Bob: nil"])
    }

    @Test("the block reads old list values and writes new list properties")
    func listsInBlock() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigDefaultsV1.self]) { realm in
            let object = MigDefaultsV1(value: ["name": "first"])
            object.tags.append(objectsIn: ["a", "bb", "ccc"])
            realm.add(object)
        }
        let log = MigrationLog()
        let configuration = file.configuration([MigDefaultsV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigDefaults") { oldObject, newObject in
                let tags = (oldObject?["tags"] as? List<String>).map { Array($0) } ?? []
                log.record("old tags \(tags)")
                newObject?["scores"] = tags.map(\.count)
                newObject?["tags"] = Array(tags.reversed())
            }
        }
        let values = try file.open(configuration) { realm in
            realm.objects(MigDefaultsV2.self).map { (Array($0.tags), Array($0.scores)) }
        }
        #expect(log.all == ["old tags [\"a\", \"bb\", \"ccc\"]"])
        try #require(values.count == 1)
        #expect(values[0].0 == ["ccc", "bb", "a"])
        #expect(values[0].1 == [1, 2, 3])
    }

    @Test("adding a LinkingObjects property needs no migration")
    func addedBacklinkNeedsNoMigration() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigOwnerV1.self, MigDogV1.self]) { realm in
            realm.add(MigOwnerV1(value: ["name": "Ann", "dog": MigDogV1(value: ["name": "Rex"])]))
        }
        let owners = try file.open(file.configuration([MigOwnerV3.self, MigDogWithOwners.self])) { realm in
            realm.objects(MigDogWithOwners.self).map { dog in dog.owners.map(\.name) }
        }
        #expect(owners == [["Ann"]])
    }

    // MARK: Removing and renaming properties

    @Test("a removed property's column is dropped; the block can still read its old value")
    func removedProperty() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithoutAge.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                log.record("old age \(oldObject?["age"] as? Int ?? -1), new age \(newObject?["age"].map { "\($0)" } ?? "nil")")
            }
        }
        let (people, columns) = try file.open(configuration) { realm in
            (realm.objects(MigPersonWithoutAge.self).map { "\($0.firstName) \($0.lastName)" }.sorted(),
             realm.storedColumns(of: "MigPerson"))
        }
        #expect(Set(log.all) == ["old age 36, new age nil", "old age 41, new age nil", "old age 85, new age nil"])
        #expect(people == ["Ada Lovelace", "Alan Turing", "Grace Hopper"])
        #expect(columns.map(Set.init) == ["firstName", "lastName"])
    }

    @Test("renameProperty(onType:from:to:) keeps the values under the new name")
    func renameProperty() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let configuration = file.configuration([MigPersonRenamed.self], version: 1) { migration, _ in
            migration.renameProperty(onType: "MigPerson", from: "firstName", to: "givenName")
        }
        let (people, columns) = try file.open(configuration) { realm in
            (realm.objects(MigPersonRenamed.self).map { ($0.givenName, $0.lastName, $0.age) }.sorted { $0.2 < $1.2 },
             realm.storedColumns(of: "MigPerson"))
        }
        #expect(people.map(\.0) == ["Ada", "Alan", "Grace"])
        #expect(people.map(\.1) == ["Lovelace", "Turing", "Hopper"])
        #expect(people.map(\.2) == [36, 41, 85])
        #expect(columns.map(Set.init) == ["givenName", "lastName", "age"])
    }

    @Test("without renameProperty, a renamed property starts at the default value")
    func renameWithoutRenameProperty() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let names = try file.open(file.configuration([MigPersonRenamed.self], version: 1)) { realm in
            realm.objects(MigPersonRenamed.self).map(\.givenName)
        }
        #expect(names == ["", "", ""])
    }

    // MARK: Optionality and type changes

    @Test("making properties optional keeps their values")
    func requiredToOptional() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let people = try file.open(file.configuration([MigPersonOptional.self], version: 1)) { realm in
            let people = realm.objects(MigPersonOptional.self).map { ($0.firstName, $0.age) }
            // nil is now storable.
            try realm.write { realm.add(MigPersonOptional(value: ["lastName": "Nobody"])) }
            return people
        }
        #expect(people.map(\.0).compactMap { $0 }.sorted() == ["Ada", "Alan", "Grace"])
        #expect(people.map(\.1).compactMap { $0 }.sorted() == [36, 41, 85])
        let again = try file.open(file.configuration([MigPersonOptional.self], version: 1)) { realm in
            realm.objects(MigPersonOptional.self).filter { $0.lastName == "Nobody" }.map { ($0.firstName, $0.age) }
        }
        try #require(again.count == 1)
        #expect(again[0].0 == nil)
        #expect(again[0].1 == nil)
    }

    @Test("making properties required turns nil into the default value and keeps the others")
    func optionalToRequired() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigOptV1.self]) { realm in
            realm.add(MigOptV1(value: ["name": "set", "count": 5]))
            realm.add(MigOptV1())
        }
        let log = MigrationLog()
        let configuration = file.configuration([MigOptV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigOpt") { oldObject, _ in
                // The old values, nil included, are still readable.
                log.record("\(oldObject?["name"] as? String ?? "nil")/\(oldObject?["count"] as? Int ?? -1)")
            }
        }
        let values = try file.open(configuration) { realm in
            realm.objects(MigOptV2.self).map { ($0.name, $0.count) }.sorted { $0.1 < $1.1 }
        }
        #expect(Set(log.all) == ["set/5", "nil/-1"])
        try #require(values.count == 2)
        #expect(values[0] == ("", 0))
        #expect(values[1] == ("set", 5))
    }

    @Test("changing a property's type: old values are readable, the new column starts at the default")
    func changedPropertyType() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonAgeString.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                guard let oldObject, let newObject else { return }
                log.record("old \(oldObject["age"].map { "\(type(of: $0))" } ?? "nil"), new '\(newObject["age"] as? String ?? "nil")'")
                newObject["age"] = "\(oldObject["age"] as? Int ?? -1) years"
            }
        }
        let ages = try file.open(configuration) { realm in
            realm.objects(MigPersonAgeString.self).map(\.age).sorted()
        }
        #expect(log.all == ["old Int, new ''", "old Int, new ''", "old Int, new ''"])
        #expect(ages == ["36 years", "41 years", "85 years"])
    }

    @Test("changing a property's type without a block resets it to the default")
    func changedPropertyTypeWithoutBlock() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let (ages, names) = try file.open(file.configuration([MigPersonAgeString.self], version: 1)) { realm in
            // Writing through the new class still works after the column was recreated.
            try realm.write { realm.add(MigPersonAgeString(value: ["firstName": "New", "lastName": "One", "age": "7"])) }
            let objects = realm.objects(MigPersonAgeString.self)
            return (objects.map(\.age).sorted(), objects.map(\.firstName).sorted())
        }
        #expect(ages == ["", "", "", "7"])
        #expect(names == ["Ada", "Alan", "Grace", "New"])
    }

    // MARK: Classes

    @Test("a class added with a version bump gets an empty table")
    func addedClass() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigA.self]) { realm in realm.add(MigA(value: ["value": 1])) }
        let counts = try file.open(file.configuration([MigA.self, MigB.self], version: 1)) { realm in
            let before = (realm.objects(MigA.self).count, realm.objects(MigB.self).count)
            try realm.write { realm.add(MigB(value: ["value": 2])) }
            return (before.0, before.1, realm.objects(MigB.self).count, realm.storedColumns(of: "MigB"))
        }
        #expect(counts.0 == 1)
        #expect(counts.1 == 0)
        #expect(counts.2 == 1)
        #expect(counts.3 == ["value"])
    }

    @Test("adding a class without a version bump needs no migration")
    func addedClassSameVersion() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigA.self]) { realm in realm.add(MigA(value: ["value": 1])) }
        let log = MigrationLog()
        let configuration = file.configuration([MigA.self, MigB.self]) { _, old in log.recordCall(oldVersion: old) }
        let hasTable = try file.open(configuration) { realm in realm.storedColumns(of: "MigB") != nil }
        #expect(hasTable)
        #expect(log.calls.isEmpty)
    }

    @Test("a class left out of the schema keeps its data and needs no migration")
    func removedClassKeepsTable() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigA.self, MigB.self]) { realm in
            realm.add(MigA(value: ["value": 1]))
            realm.add(MigB(value: ["value": 2]))
        }
        try file.open(file.configuration([MigA.self]))
        try file.open(file.configuration([MigA.self], version: 1))
        let values = try file.open(file.configuration([MigA.self, MigB.self], version: 1)) { realm in
            realm.objects(MigB.self).map(\.value)
        }
        #expect(values == [2])
    }

    @Test("a class removed from the schema is enumerated with a nil new object")
    func enumerateRemovedClass() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigPersonV1.self, MigB.self]) { realm in
            realm.add(MigPersonV1(value: ["firstName": "Ada"]))
            realm.add(MigB(value: ["value": 2]))
            realm.add(MigB(value: ["value": 3]))
        }
        let log = MigrationLog()
        // MigPerson changes too, so the block runs whatever rule decides when it is called.
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigB") { oldObject, newObject in
                log.record("old \(oldObject?["value"] as? Int ?? -1), new \(newObject == nil ? "nil" : "non-nil")")
            }
        }
        try file.open(configuration)
        #expect(Set(log.all) == ["old 2, new nil", "old 3, new nil"])
    }

    @Test("deleteData(forType:) of a class removed from the schema drops its table")
    func deleteDataOfRemovedClass() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigPersonV1.self, MigB.self]) { realm in
            realm.add(MigPersonV1(value: ["firstName": "Ada"]))
            realm.add(MigB(value: ["value": 2]))
        }
        let log = MigrationLog()
        // MigPerson changes too, so the block runs whatever rule decides when it is called.
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            log.record("MigB \(migration.deleteData(forType: "MigB"))")
            log.record("NoSuchClass \(migration.deleteData(forType: "NoSuchClass"))")
        }
        let (hasTable, count) = try file.open(configuration) { realm in
            (realm.storedColumns(of: "MigB") != nil, realm.objects(MigPersonWithFullName.self).count)
        }
        #expect(log.all == ["MigB true", "NoSuchClass false"])
        #expect(!hasTable)
        #expect(count == 1)
        // The old class data is really gone: bringing the class back shows an empty table.
        let bCount = try file.open(file.configuration([MigPersonWithFullName.self, MigB.self], version: 1)) { realm in
            realm.objects(MigB.self).count
        }
        #expect(bCount == 0)
    }

    @Test("deleteData(forType:) of a class in the schema empties its table and returns true")
    func deleteDataOfCurrentClass() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            log.record("\(migration.deleteData(forType: "MigPerson"))")
            var count = 0
            migration.enumerateObjects(ofType: "MigPerson") { _, _ in count += 1 }
            log.record("enumerated \(count)")
            migration.create("MigPerson", value: ["firstName": "Kept", "fullName": "Kept Later"])
        }
        let (names, columns) = try file.open(configuration) { realm in
            (realm.objects(MigPersonWithFullName.self).map(\.fullName), realm.storedColumns(of: "MigPerson"))
        }
        #expect(log.all == ["true", "enumerated 0"])
        #expect(names == ["Kept Later"])
        #expect(columns != nil)
    }

    // MARK: create and delete

    @Test("migration.create makes objects from a dictionary, an array or nothing")
    func migrationCreate() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            let made = migration.create("MigPerson", value: ["firstName": "Dict", "age": 1])
            log.record("made \(made["firstName"] as? String ?? "?") \(made["age"] as? Int ?? -1)")
            made["fullName"] = "Dict Made"
            migration.create("MigPerson", value: ["Array", "Made", 2, "Array Made"])
            migration.create("MigPerson")
            // Objects created in the block are not enumerated as old objects.
            var count = 0
            migration.enumerateObjects(ofType: "MigPerson") { _, _ in count += 1 }
            log.record("enumerated \(count)")
        }
        let people: [String] = try file.open(configuration) { realm in
            let all = realm.objects(MigPersonWithFullName.self)
            return all.map { (person: MigPersonWithFullName) -> String in
                "\(person.firstName)|\(person.lastName)|\(person.age)|\(person.fullName)"
            }
        }
        #expect(log.all == ["made Dict 1", "enumerated 3"])
        #expect(people.count == 6)
        #expect(Set(people).isSuperset(of: ["||0|", "Dict||1|Dict Made", "Array|Made|2|Array Made"]))
    }

    @Test("migration.create can fill a class added in the same migration",
          .disabled("bug: traps 'Object type 'MigB' is not in the new schema' (Migration.swift:63); SchemaSetup.run creates new tables only after SchemaMigrator.migrate() has run the block"))
    func createInAddedClass() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        // MigPerson changes too, so the block runs whatever rule decides when it is called.
        let configuration = file.configuration([MigPersonWithFullName.self, MigB.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, _ in
                migration.create("MigB", value: ["value": oldObject?["age"] as? Int ?? 0])
            }
        }
        let values = try file.open(configuration) { realm in realm.objects(MigB.self).map(\.value).sorted() }
        #expect(values == [36, 41, 85])
    }

    @Test("migration.delete removes objects; later enumerations skip them")
    func migrationDelete() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                if let newObject, oldObject?["age"] as? Int ?? 0 > 40 { migration.delete(newObject) }
            }
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                log.record("\(oldObject?["firstName"] as? String ?? "?") \(newObject == nil ? "nil" : "live")")
            }
        }
        let names = try file.open(configuration) { realm in realm.objects(MigPersonWithFullName.self).map(\.firstName) }
        #expect(names == ["Ada"])
        // Realm's enumerateObjects skips objects deleted earlier in the migration.
        #expect(log.all == ["Ada live"])
    }

    @Test("deleting and creating in the block does not pair new objects with old ones")
    func deleteThenCreate() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                if let newObject, oldObject?["firstName"] as? String == "Alan" {
                    migration.delete(newObject)
                    migration.create("MigPerson", value: ["firstName": "Replacement"])
                }
            }
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                guard let oldObject, let newObject else { return }
                let same = oldObject["firstName"] as? String == newObject["firstName"] as? String
                log.record("\(oldObject["firstName"] as? String ?? "?") \(same ? "same" : "different")")
            }
        }
        let names = try file.open(configuration) { realm in
            realm.objects(MigPersonWithFullName.self).map(\.firstName).sorted()
        }
        #expect(names == ["Ada", "Grace", "Replacement"])
        #expect(log.all.sorted() == ["Ada same", "Grace same"])
    }

    @Test("enumerating an unknown type name does nothing")
    func enumerateUnknownType() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "NoSuchClass") { _, _ in log.record("called") }
            log.record("done")
        }
        let count = try file.open(configuration) { realm in realm.objects(MigPersonWithFullName.self).count }
        #expect(log.all == ["done"])
        #expect(count == 3)
    }

    // MARK: Schemas and versions

    @Test("oldSchema and newSchema describe the two versions")
    func oldAndNewSchema() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonAgeString.self, MigA.self], version: 1) { migration, _ in
            let old = migration.oldSchema
            let new = migration.newSchema
            log.record("old classes \(old.objectSchema.map(\.className).sorted())")
            log.record("new classes \(new.objectSchema.map(\.className).sorted())")
            log.record("old props \(old["MigPerson"]?.properties.map(\.name) ?? [])")
            log.record("new props \(new["MigPerson"]?.properties.map(\.name) ?? [])")
            log.record("old age \(old["MigPerson"]?["age"]?.type.description ?? "nil")")
            log.record("new age \(new["MigPerson"]?["age"]?.type.description ?? "nil")")
            log.record("old optional \(old["MigPerson"]?["firstName"]?.isOptional.description ?? "nil")")
        }
        try file.open(configuration)
        #expect(log.all == [
            "old classes [\"MigPerson\"]",
            "new classes [\"MigA\", \"MigPerson\"]",
            "old props [\"firstName\", \"lastName\", \"age\"]",
            "new props [\"firstName\", \"lastName\", \"age\"]",
            "old age int",
            "new age string",
            "old optional false",
        ])
    }

    @Test("the block receives the file's old schema version and the new one is stored")
    func blockReceivesOldVersion() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file, version: 3)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonWithFullName.self], version: 5) { _, old in
            log.recordCall(oldVersion: old)
        }
        let stored = try file.open(configuration) { realm in realm.storedSchemaVersion }
        #expect(log.calls == [3])
        #expect(stored == 5)
    }

    @Test("the block is not called for a new file, nor when the version is unchanged")
    func blockNotCalledWithoutMigration() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonV1.self], version: 4) { _, old in log.recordCall(oldVersion: old) }
        let stored = try file.open(configuration) { realm in
            try realm.write { realm.add(MigPersonV1(value: ["firstName": "A"])) }
            return realm.storedSchemaVersion
        }
        try file.open(configuration)
        #expect(log.calls.isEmpty)
        #expect(stored == 4)
    }

    @Test("bumping the schema version without a schema change calls the block")
    func versionBumpOnlyCallsBlock() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let configuration = file.configuration([MigPersonV1.self], version: 1) { migration, old in
            log.recordCall(oldVersion: old)
            migration.enumerateObjects(ofType: "MigPerson") { _, newObject in
                newObject?["age"] = (newObject?["age"] as? Int ?? 0) + 1
            }
        }
        let (ages, stored) = try file.open(configuration) { realm in
            (realm.objects(MigPersonV1.self).map(\.age).sorted(), realm.storedSchemaVersion)
        }
        #expect(log.calls == [0])
        #expect(ages == [37, 42, 86])
        #expect(stored == 1)
    }

    @Test("adding a class with a version bump calls the block")
    func addedClassCallsBlock() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigA.self]) { realm in realm.add(MigA(value: ["value": 1])) }
        let log = MigrationLog()
        let configuration = file.configuration([MigA.self, MigB.self], version: 1) { _, old in log.recordCall(oldVersion: old) }
        try file.open(configuration)
        #expect(log.calls == [0])
    }

    @Test("migrations chain across versions with oldSchemaVersion checks")
    func chainedMigrations() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        // The app's block at version 1 knows version 0 only.
        let blockV1: Realm.MigrationBlock = { migration, old in
            log.recordCall(oldVersion: old)
            if old < 1 {
                migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                    newObject?["fullName"] = "\(oldObject?["firstName"] as? String ?? "") \(oldObject?["lastName"] as? String ?? "")"
                }
            }
        }
        // The app's block at version 2 handles both older versions.
        let blockV2: Realm.MigrationBlock = { migration, old in
            log.recordCall(oldVersion: old)
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                if old < 1 {
                    newObject?["fullName"] = "\(oldObject?["firstName"] as? String ?? "") \(oldObject?["lastName"] as? String ?? "")"
                }
                if old < 2 { newObject?["isAdult"] = (oldObject?["age"] as? Int ?? 0) >= 18 }
            }
        }
        // 0 → 1
        let afterOne = try file.open(file.configuration([MigPersonWithFullName.self], version: 1, block: blockV1)) { realm in
            realm.objects(MigPersonWithFullName.self).map(\.fullName).sorted()
        }
        #expect(afterOne == ["Ada Lovelace", "Alan Turing", "Grace Hopper"])
        // 1 → 2: fullName was stored at version 1 and is kept.
        let afterTwo = try file.open(file.configuration([MigPersonV3.self], version: 2, block: blockV2)) { realm in
            (realm.objects(MigPersonV3.self).map { "\($0.fullName) \($0.age) \($0.isAdult)" }.sorted(),
             realm.storedColumns(of: "MigPerson").map(Set.init), realm.storedSchemaVersion)
        }
        #expect(log.calls == [0, 1])
        #expect(afterTwo.0 == ["Ada Lovelace 36 true", "Alan Turing 41 true", "Grace Hopper 85 true"])
        #expect(afterTwo.1 == ["fullName", "age", "isAdult"])
        #expect(afterTwo.2 == 2)
    }

    @Test("a file migrated straight from version 0 to 2 gets the same result as the chain")
    func skippedVersions() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let configuration = file.configuration([MigPersonV3.self], version: 2) { migration, old in
            #expect(old == 0)
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                newObject?["fullName"] = "\(oldObject?["firstName"] as? String ?? "") \(oldObject?["lastName"] as? String ?? "")"
                newObject?["isAdult"] = (oldObject?["age"] as? Int ?? 0) >= 18
            }
        }
        let people = try file.open(configuration) { realm in
            realm.objects(MigPersonV3.self).map { "\($0.fullName) \($0.age) \($0.isAdult)" }.sorted()
        }
        #expect(people == ["Ada Lovelace 36 true", "Alan Turing 41 true", "Grace Hopper 85 true"])
    }

    // MARK: Indexes and order

    @Test("adding and removing an index needs no migration")
    func indexChangesNeedNoMigration() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let log = MigrationLog()
        let block: Realm.MigrationBlock = { _, old in log.recordCall(oldVersion: old) }
        func firstNameIndexed(_ realm: Realm) -> Bool? {
            guard let schema = realm.readSnapshot.table(named: "MigPerson")?.schema,
                  let index = schema.columnIndex("firstName") else { return nil }
            return schema.columns[index].isIndexed
        }
        let indexed = try file.open(file.configuration([MigPersonIndexed.self], block: block)) { realm in
            (firstNameIndexed(realm), realm.objects(MigPersonIndexed.self).map(\.firstName).sorted())
        }
        #expect(indexed.0 == true)
        #expect(indexed.1 == ["Ada", "Alan", "Grace"])
        let unindexed = try file.open(file.configuration([MigPersonV1.self], block: block)) { realm in
            (firstNameIndexed(realm), realm.objects(MigPersonV1.self).count, realm.storedSchemaVersion)
        }
        #expect(unindexed.0 == false)
        #expect(unindexed.1 == 3)
        #expect(unindexed.2 == 0)
        #expect(log.calls.isEmpty)
    }

    @Test("declaring the properties in another order needs no migration")
    func reorderedPropertiesNeedNoMigration() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let people = try file.open(file.configuration([MigPersonReordered.self])) { realm in
            try realm.write { realm.add(MigPersonReordered(value: ["firstName": "Zed", "lastName": "Last", "age": 1])) }
            return realm.objects(MigPersonReordered.self).map { "\($0.firstName) \($0.lastName) \($0.age)" }.sorted()
        }
        #expect(people == ["Ada Lovelace 36", "Alan Turing 41", "Grace Hopper 85", "Zed Last 1"])
    }

    // MARK: Persistence

    @Test("migrated data survives another close and reopen")
    func migratedDataPersists() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try seedPeople(file)
        let configuration = file.configuration([MigPersonWithFullName.self], version: 2) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                newObject?["fullName"] = "\(oldObject?["firstName"] as? String ?? "") \(oldObject?["lastName"] as? String ?? "")"
                if oldObject?["firstName"] as? String == "Alan", let newObject { migration.delete(newObject) }
            }
            migration.create("MigPerson", value: ["firstName": "Made", "fullName": "Made In Migration", "age": 1])
        }
        try file.open(configuration)
        let log = MigrationLog()
        let reopened = file.configuration([MigPersonWithFullName.self], version: 2) { _, old in log.recordCall(oldVersion: old) }
        let (people, stored) = try file.open(reopened) { realm in
            (realm.objects(MigPersonWithFullName.self).map { "\($0.fullName)/\($0.age)" }.sorted(), realm.storedSchemaVersion)
        }
        #expect(log.calls.isEmpty)
        #expect(people == ["Ada Lovelace/36", "Grace Hopper/85", "Made In Migration/1"])
        #expect(stored == 2)
    }
}

