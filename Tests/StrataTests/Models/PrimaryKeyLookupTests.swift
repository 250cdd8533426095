import Foundation
import Strata
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
}
