import Foundation
import Strata
import StrataTestSupport
import Testing

/// A model keyed by `Int`.
final class IntKeyed: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

/// A model keyed by `Int64`.
final class Int64Keyed: Object {
    @Persisted(primaryKey: true) var id: Int64
    @Persisted var name: String
}

/// A model keyed by `Int32`.
final class Int32Keyed: Object {
    @Persisted(primaryKey: true) var id: Int32
    @Persisted var name: String
}

/// A model keyed by an optional `Int`.
final class OptionalIntKeyed: Object {
    @Persisted(primaryKey: true) var id: Int?
    @Persisted var name: String
}

@Suite("Primary-key lookups by integer keys")
struct PrimaryKeyLookupTests {
    private func realm() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: UUID().uuidString,
            objectTypes: [IntKeyed.self, Int64Keyed.self, Int32Keyed.self, OptionalIntKeyed.self]))
        try realm.write {
            for id in [-3, 0, 7, Int(Int32.max)] {
                realm.add(IntKeyed(value: ["id": id, "name": "int \(id)"]))
                realm.add(Int64Keyed(value: ["id": id, "name": "int64 \(id)"]))
                realm.add(Int32Keyed(value: ["id": id, "name": "int32 \(id)"]))
                realm.add(OptionalIntKeyed(value: ["id": id, "name": "optional \(id)"]))
            }
            realm.add(OptionalIntKeyed(value: ["id": NSNull(), "name": "optional nil"]))
        }
        return realm
    }

    @Test("a key of the primary key's own integer type or of another finds the object, and a missing one finds none")
    func integerKeysOfEveryType() throws {
        let realm = try realm()
        for id in [-3, 0, 7, Int(Int32.max)] {
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: id)?.name == "int \(id)")
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: Int64(id))?.name == "int \(id)")
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: Int32(id))?.name == "int \(id)")
            #expect(realm.object(ofType: Int64Keyed.self, forPrimaryKey: Int64(id))?.name == "int64 \(id)")
            #expect(realm.object(ofType: Int64Keyed.self, forPrimaryKey: id)?.name == "int64 \(id)")
            #expect(realm.object(ofType: Int32Keyed.self, forPrimaryKey: Int32(id))?.name == "int32 \(id)")
            #expect(realm.object(ofType: Int32Keyed.self, forPrimaryKey: id)?.name == "int32 \(id)")
            #expect(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: id)?.name == "optional \(id)")
            #expect(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: Int?.some(id))?.name == "optional \(id)")
        }
        #expect(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: Int?.none)?.name == "optional nil")
        for missing in [Int.min, -1, 8, Int.max] {
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: missing) == nil)
            #expect(realm.object(ofType: Int64Keyed.self, forPrimaryKey: Int64(missing)) == nil)
        }
    }

    // A Realm keeps the index its last lookup of a class used, for the next lookup at the same
    // version. These tests look a class up, change what the Realm reads in every way it can, and
    // look it up again: a lookup answered from a stale index would find what is no longer there.

    @Test("a lookup sees what a refresh brings in: objects another thread added, changed or deleted")
    func lookupsFollowRefreshes() throws {
        try withTemporaryDirectory { directory in
            var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory.path + "/keys.realm"),
                                                    objectTypes: [IntKeyed.self, Int64Keyed.self])
            configuration.schemaVersion = 1
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(IntKeyed(value: ["id": 1, "name": "one"])) }
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 1)?.name == "one")
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 2) == nil)
            let sendable = configuration
            let writer = startThreads(1) { _ in
                let other = try! Realm(configuration: sendable)
                try! other.write {
                    other.add(IntKeyed(value: ["id": 2, "name": "two"]))
                    other.object(ofType: IntKeyed.self, forPrimaryKey: 1)!.name = "uno"
                }
            }
            writer.wait()
            // Not refreshed yet (a plain thread does not autorefresh): the pinned version.
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 2) == nil)
            realm.refresh()
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 2)?.name == "two")
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 1)?.name == "uno")
            startThreads(1) { _ in
                let other = try! Realm(configuration: sendable)
                try! other.write { other.delete(other.object(ofType: IntKeyed.self, forPrimaryKey: 1)!) }
            }.wait()
            realm.refresh()
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 1) == nil)
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 2)?.name == "two")
        }
    }

    @Test("inside a write a lookup sees the write's own additions and deletions, and after a cancelled write the version before it")
    func lookupsFollowTheWrite() throws {
        let realm = try realm()
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 7)?.name == "int 7")
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 8) == nil)
        realm.beginWrite()
        realm.add(IntKeyed(value: ["id": 8, "name": "int 8"]))
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 8)?.name == "int 8")
        realm.delete(realm.object(ofType: IntKeyed.self, forPrimaryKey: 7)!)
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 7) == nil)
        realm.add(IntKeyed(value: ["id": 9, "name": "int 9"]))
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 9)?.name == "int 9")
        realm.cancelWrite()
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 7)?.name == "int 7")
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 8) == nil)
        try realm.write { realm.add(IntKeyed(value: ["id": 10, "name": "int 10"])) }
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 10)?.name == "int 10")
    }

    @Test("lookups alternating between classes and key types, and after invalidate(), find their own objects")
    func lookupsAlternateClassesAndKeyTypes() throws {
        let realm = try realm()
        for _ in 0..<3 {
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 7)?.name == "int 7")
            #expect(realm.object(ofType: Int64Keyed.self, forPrimaryKey: Int64(7))?.name == "int64 7")
            #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: Int64(0))?.name == "int 0")
            #expect(realm.object(ofType: Int64Keyed.self, forPrimaryKey: -3)?.name == "int64 -3")
            #expect(realm.object(ofType: Int32Keyed.self, forPrimaryKey: 7)?.name == "int32 7")
            realm.invalidate()
        }
    }

    @Test("a frozen Realm's lookups from several threads at once find the frozen version's objects")
    func frozenLookupsFromThreads() throws {
        let realm = try realm()
        let anchor = Frozen(realm.object(ofType: IntKeyed.self, forPrimaryKey: 0)!)
        try realm.write { realm.add(IntKeyed(value: ["id": 8, "name": "int 8"])) }
        let failures = LockedCounter()
        startThreads(4) { thread in
            let frozen = anchor.value.realm!
            for round in 0..<500 {
                let id = [-3, 0, 7][(thread + round) % 3]
                if frozen.object(ofType: IntKeyed.self, forPrimaryKey: id)?.name != "int \(id)" { failures.increment() }
                if frozen.object(ofType: IntKeyed.self, forPrimaryKey: 8) != nil { failures.increment() }
            }
        }.wait()
        #expect(failures.value == 0)
        #expect(realm.object(ofType: IntKeyed.self, forPrimaryKey: 8)?.name == "int 8")
    }
}
