import Foundation
@testable import Strata
import Testing

// Every row of Realm's property type table (REALM-SEMANTICS.md §1.1): defaults, custom
// defaults, round trips through a file, the same types inside List / MutableSet / Map, links,
// embedded objects and LinkingObjects.

// MARK: - Models

enum TTIntEnum: Int, PersistableEnum {
    case first = 1, second = 2, third = 3
}

enum TTStringEnum: String, PersistableEnum {
    case alpha, beta, gamma
}

final class TTRequiredTypes: Object {
    @Persisted var bool: Bool
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var uuid: UUID
    @Persisted var objectId: ObjectId
    @Persisted var any: AnyRealmValue
    @Persisted var intEnum: TTIntEnum
    @Persisted var stringEnum: TTStringEnum
}

final class TTOptionalTypes: Object {
    @Persisted var bool: Bool?
    @Persisted var int: Int?
    @Persisted var int8: Int8?
    @Persisted var int16: Int16?
    @Persisted var int32: Int32?
    @Persisted var int64: Int64?
    @Persisted var float: Float?
    @Persisted var double: Double?
    @Persisted var string: String?
    @Persisted var data: Data?
    @Persisted var date: Date?
    @Persisted var decimal: Decimal128?
    @Persisted var uuid: UUID?
    @Persisted var objectId: ObjectId?
    @Persisted var intEnum: TTIntEnum?
    @Persisted var stringEnum: TTStringEnum?
}

final class TTCustomDefaults: Object {
    @Persisted var bool = true
    @Persisted var int = 42
    @Persisted var int8: Int8 = -8
    @Persisted var int16: Int16 = 1_616
    @Persisted var int32: Int32 = -323_232
    @Persisted var int64: Int64 = 6_464_646_464
    @Persisted var float: Float = 1.5
    @Persisted var double = 2.25
    @Persisted var string = "default"
    @Persisted var data = Data([1, 2, 3])
    @Persisted var date = Date(timeIntervalSince1970: 1_000_000)
    @Persisted var decimal: Decimal128 = "3.14"
    @Persisted var uuid = UUID()
    @Persisted var objectId = ObjectId.generate()
    @Persisted var any: AnyRealmValue = .string("any default")
    @Persisted var intEnum = TTIntEnum.third
    @Persisted var stringEnum = TTStringEnum.beta
    @Persisted var optionalInt: Int? = 7
    @Persisted var optionalString: String? = "optional default"
    @Persisted var optionalEnum: TTStringEnum? = .gamma
}

final class TTRequiredCollections: Object {
    @Persisted var listBool: List<Bool>
    @Persisted var setBool: MutableSet<Bool>
    @Persisted var mapBool: Map<String, Bool>
    @Persisted var listInt: List<Int>
    @Persisted var setInt: MutableSet<Int>
    @Persisted var mapInt: Map<String, Int>
    @Persisted var listInt8: List<Int8>
    @Persisted var setInt8: MutableSet<Int8>
    @Persisted var mapInt8: Map<String, Int8>
    @Persisted var listInt16: List<Int16>
    @Persisted var setInt16: MutableSet<Int16>
    @Persisted var mapInt16: Map<String, Int16>
    @Persisted var listInt32: List<Int32>
    @Persisted var setInt32: MutableSet<Int32>
    @Persisted var mapInt32: Map<String, Int32>
    @Persisted var listInt64: List<Int64>
    @Persisted var setInt64: MutableSet<Int64>
    @Persisted var mapInt64: Map<String, Int64>
    @Persisted var listFloat: List<Float>
    @Persisted var setFloat: MutableSet<Float>
    @Persisted var mapFloat: Map<String, Float>
    @Persisted var listDouble: List<Double>
    @Persisted var setDouble: MutableSet<Double>
    @Persisted var mapDouble: Map<String, Double>
    @Persisted var listString: List<String>
    @Persisted var setString: MutableSet<String>
    @Persisted var mapString: Map<String, String>
    @Persisted var listData: List<Data>
    @Persisted var setData: MutableSet<Data>
    @Persisted var mapData: Map<String, Data>
    @Persisted var listDate: List<Date>
    @Persisted var setDate: MutableSet<Date>
    @Persisted var mapDate: Map<String, Date>
    @Persisted var listDecimal: List<Decimal128>
    @Persisted var setDecimal: MutableSet<Decimal128>
    @Persisted var mapDecimal: Map<String, Decimal128>
    @Persisted var listUUID: List<UUID>
    @Persisted var setUUID: MutableSet<UUID>
    @Persisted var mapUUID: Map<String, UUID>
    @Persisted var listObjectId: List<ObjectId>
    @Persisted var setObjectId: MutableSet<ObjectId>
    @Persisted var mapObjectId: Map<String, ObjectId>
    @Persisted var listAny: List<AnyRealmValue>
    @Persisted var setAny: MutableSet<AnyRealmValue>
    @Persisted var mapAny: Map<String, AnyRealmValue>
    @Persisted var listIntEnum: List<TTIntEnum>
    @Persisted var setIntEnum: MutableSet<TTIntEnum>
    @Persisted var mapIntEnum: Map<String, TTIntEnum>
    @Persisted var listStringEnum: List<TTStringEnum>
    @Persisted var setStringEnum: MutableSet<TTStringEnum>
    @Persisted var mapStringEnum: Map<String, TTStringEnum>
}

final class TTOptionalCollections: Object {
    @Persisted var listBool: List<Bool?>
    @Persisted var setBool: MutableSet<Bool?>
    @Persisted var mapBool: Map<String, Bool?>
    @Persisted var listInt: List<Int?>
    @Persisted var setInt: MutableSet<Int?>
    @Persisted var mapInt: Map<String, Int?>
    @Persisted var listInt8: List<Int8?>
    @Persisted var setInt8: MutableSet<Int8?>
    @Persisted var mapInt8: Map<String, Int8?>
    @Persisted var listInt16: List<Int16?>
    @Persisted var setInt16: MutableSet<Int16?>
    @Persisted var mapInt16: Map<String, Int16?>
    @Persisted var listInt32: List<Int32?>
    @Persisted var setInt32: MutableSet<Int32?>
    @Persisted var mapInt32: Map<String, Int32?>
    @Persisted var listInt64: List<Int64?>
    @Persisted var setInt64: MutableSet<Int64?>
    @Persisted var mapInt64: Map<String, Int64?>
    @Persisted var listFloat: List<Float?>
    @Persisted var setFloat: MutableSet<Float?>
    @Persisted var mapFloat: Map<String, Float?>
    @Persisted var listDouble: List<Double?>
    @Persisted var setDouble: MutableSet<Double?>
    @Persisted var mapDouble: Map<String, Double?>
    @Persisted var listString: List<String?>
    @Persisted var setString: MutableSet<String?>
    @Persisted var mapString: Map<String, String?>
    @Persisted var listData: List<Data?>
    @Persisted var setData: MutableSet<Data?>
    @Persisted var mapData: Map<String, Data?>
    @Persisted var listDate: List<Date?>
    @Persisted var setDate: MutableSet<Date?>
    @Persisted var mapDate: Map<String, Date?>
    @Persisted var listDecimal: List<Decimal128?>
    @Persisted var setDecimal: MutableSet<Decimal128?>
    @Persisted var mapDecimal: Map<String, Decimal128?>
    @Persisted var listUUID: List<UUID?>
    @Persisted var setUUID: MutableSet<UUID?>
    @Persisted var mapUUID: Map<String, UUID?>
    @Persisted var listObjectId: List<ObjectId?>
    @Persisted var setObjectId: MutableSet<ObjectId?>
    @Persisted var mapObjectId: Map<String, ObjectId?>
    @Persisted var listIntEnum: List<TTIntEnum?>
    @Persisted var setIntEnum: MutableSet<TTIntEnum?>
    @Persisted var mapIntEnum: Map<String, TTIntEnum?>
    @Persisted var listStringEnum: List<TTStringEnum?>
    @Persisted var setStringEnum: MutableSet<TTStringEnum?>
    @Persisted var mapStringEnum: Map<String, TTStringEnum?>
}

final class TTTarget: Object {
    @Persisted var name: String
    @Persisted(originProperty: "link") var viaLink: LinkingObjects<TTLinkHolder>
    @Persisted(originProperty: "targets") var viaList: LinkingObjects<TTLinkHolder>
    @Persisted(originProperty: "targetSet") var viaSet: LinkingObjects<TTLinkHolder>
}

final class TTEmbeddedChild: EmbeddedObject {
    @Persisted var note: String
}

final class TTEmbedded: EmbeddedObject {
    @Persisted var label: String
    @Persisted var value: Int
    @Persisted var child: TTEmbeddedChild?
}

final class TTLinkHolder: Object {
    @Persisted var name: String
    @Persisted var link: TTTarget?
    @Persisted var embedded: TTEmbedded?
    @Persisted var targets: List<TTTarget>
    @Persisted var embeddedList: List<TTEmbedded>
    @Persisted var targetSet: MutableSet<TTTarget>
    @Persisted var targetMap: Map<String, TTTarget?>
    @Persisted var embeddedMap: Map<String, TTEmbedded?>
}

/// An optional enum property whose file is written through `TTEnumHolderTwin`.
final class TTEnumHolder: Object {
    @Persisted var intEnum: TTIntEnum?
    @Persisted var stringEnum: TTStringEnum?
}

/// The same class name and columns as `TTEnumHolder`, with the raw types, so that a test can
/// store raw values that match no case.
final class TTEnumHolderTwin: Object {
    override class func className() -> String { "TTEnumHolder" }
    @Persisted var intEnum: Int?
    @Persisted var stringEnum: String?
}

// MARK: - Helpers

private func ttTemporaryRealmURL() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-typetable-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("types.strata")
}

private func ttRemoveRealm(at url: URL) {
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

private func ttFileConfig(_ url: URL, _ types: [ObjectBase.Type]) -> Realm.Configuration {
    Realm.Configuration(fileURL: url, objectTypes: types)
}

private func ttMemoryConfig(_ types: [ObjectBase.Type]) -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "typetable-\(UUID().uuidString)", objectTypes: types)
}

/// Whether two dates are equal to the millisecond or better.
private func ttSameDate(_ lhs: Date?, _ rhs: Date?) -> Bool {
    guard let lhs, let rhs else { return lhs == nil && rhs == nil }
    return abs(lhs.timeIntervalSince1970 - rhs.timeIntervalSince1970) < 0.001
}

/// Non-default values of every type.
private enum TTSample {
    static let int8: Int8 = .min
    static let int16: Int16 = .max
    static let int32: Int32 = .min
    static let int64: Int64 = .max - 1
    static let float: Float = -1234.5
    static let double = Double.pi
    static let string = "Grüße 🌍 \u{0} tab\t\"quote\""
    static let data = Data([0, 1, 2, 0xFE, 0xFF] + Array(repeating: 0xAB, count: 1000))
    static let date = Date(timeIntervalSince1970: 1_712_345_678.123)
    static let decimal: Decimal128 = "-12345.6789"
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let objectId = ObjectId("5f3d2c1b0a09080706050403")
}

// MARK: - Tests

@Suite("Type table")
struct TypeTableTests {
    // MARK: Defaults

    @Test("A fresh unmanaged object has Realm's default for every required type")
    func requiredDefaults() {
        let object = TTRequiredTypes()
        #expect(object.bool == false)
        #expect(object.int == 0)
        #expect(object.int8 == 0)
        #expect(object.int16 == 0)
        #expect(object.int32 == 0)
        #expect(object.int64 == 0)
        #expect(object.float == 0)
        #expect(object.double == 0)
        #expect(object.string == "")
        #expect(object.data == Data())
        #expect(abs(object.date.timeIntervalSinceNow) < 60)
        #expect(object.decimal == Decimal128(0))
        #expect(object.decimal.description == "0")
        #expect(object.any == .none)
        #expect(object.intEnum == .first)
        #expect(object.stringEnum == .alpha)
        #expect(object.objectId != ObjectId(), "the default ObjectId is generated, not all zeros")
    }

    @Test("Default UUIDs and ObjectIds are random per instance and stable within one instance")
    func randomDefaultsPerInstance() {
        let first = TTRequiredTypes()
        let second = TTRequiredTypes()
        #expect(first.uuid != second.uuid)
        #expect(first.objectId != second.objectId)
        #expect(first.uuid == first.uuid)
        #expect(first.objectId == first.objectId)
        let uuids = Set((0..<50).map { _ in TTRequiredTypes().uuid })
        #expect(uuids.count == 50)
    }

    @Test("A fresh unmanaged object has nil for every optional type")
    func optionalDefaults() {
        let object = TTOptionalTypes()
        #expect(object.bool == nil)
        #expect(object.int == nil)
        #expect(object.int8 == nil)
        #expect(object.int16 == nil)
        #expect(object.int32 == nil)
        #expect(object.int64 == nil)
        #expect(object.float == nil)
        #expect(object.double == nil)
        #expect(object.string == nil)
        #expect(object.data == nil)
        #expect(object.date == nil)
        #expect(object.decimal == nil)
        #expect(object.uuid == nil)
        #expect(object.objectId == nil)
        #expect(object.intEnum == nil)
        #expect(object.stringEnum == nil)
    }

    @Test("Links, embedded objects and collections start empty on a fresh object")
    func relationshipDefaults() {
        let holder = TTLinkHolder()
        #expect(holder.link == nil)
        #expect(holder.embedded == nil)
        #expect(holder.targets.isEmpty)
        #expect(holder.embeddedList.isEmpty)
        #expect(holder.targetSet.isEmpty)
        #expect(holder.targetMap.isEmpty)
        let collections = TTRequiredCollections()
        #expect(collections.listInt.isEmpty)
        #expect(collections.setString.isEmpty)
        #expect(collections.mapAny.isEmpty)
        #expect(TTTarget().viaLink.isEmpty, "unmanaged LinkingObjects are empty")
    }

    @Test("Custom defaults given with `= value` are used, and evaluated per instance")
    func customDefaults() {
        let object = TTCustomDefaults()
        #expect(object.bool == true)
        #expect(object.int == 42)
        #expect(object.int8 == -8)
        #expect(object.int16 == 1_616)
        #expect(object.int32 == -323_232)
        #expect(object.int64 == 6_464_646_464)
        #expect(object.float == 1.5)
        #expect(object.double == 2.25)
        #expect(object.string == "default")
        #expect(object.data == Data([1, 2, 3]))
        #expect(object.date == Date(timeIntervalSince1970: 1_000_000))
        #expect(object.decimal == ("3.14" as Decimal128))
        #expect(object.any == .string("any default"))
        #expect(object.intEnum == .third)
        #expect(object.stringEnum == .beta)
        #expect(object.optionalInt == 7)
        #expect(object.optionalString == "optional default")
        #expect(object.optionalEnum == .gamma)
        let other = TTCustomDefaults()
        #expect(object.uuid != other.uuid, "`= UUID()` is evaluated for each instance")
        #expect(object.objectId != other.objectId)
    }

    @Test("Custom defaults are stored when an object is added unchanged and survive reopening")
    func customDefaultsPersist() throws {
        let url = try ttTemporaryRealmURL()
        defer { ttRemoveRealm(at: url) }
        let config = ttFileConfig(url, [TTCustomDefaults.self])
        let (uuid, objectId) = try { () throws -> (UUID, ObjectId) in
            let realm = try Realm(configuration: config)
            let object = TTCustomDefaults()
            try realm.write { realm.add(object) }
            #expect(object.int == 42)
            #expect(object.optionalEnum == .gamma)
            return (object.uuid, object.objectId)
        }()
        let realm = try Realm(configuration: config)
        let object = try #require(realm.objects(TTCustomDefaults.self).first)
        #expect(object.bool == true)
        #expect(object.int == 42)
        #expect(object.int8 == -8)
        #expect(object.int16 == 1_616)
        #expect(object.int32 == -323_232)
        #expect(object.int64 == 6_464_646_464)
        #expect(object.float == 1.5)
        #expect(object.double == 2.25)
        #expect(object.string == "default")
        #expect(object.data == Data([1, 2, 3]))
        #expect(object.date == Date(timeIntervalSince1970: 1_000_000))
        #expect(object.decimal == ("3.14" as Decimal128))
        #expect(object.uuid == uuid)
        #expect(object.objectId == objectId)
        #expect(object.any == .string("any default"))
        #expect(object.intEnum == .third)
        #expect(object.stringEnum == .beta)
        #expect(object.optionalInt == 7)
        #expect(object.optionalString == "optional default")
        #expect(object.optionalEnum == .gamma)
    }

    @Test("Fresh defaults (zeros, empty values, generated ids) are what a managed object stores")
    func plainDefaultsPersist() throws {
        let realm = try Realm(configuration: ttMemoryConfig([TTRequiredTypes.self, TTOptionalTypes.self]))
        let required = TTRequiredTypes()
        let optional = TTOptionalTypes()
        try realm.write {
            realm.add(required)
            realm.add(optional)
        }
        let stored = try #require(realm.objects(TTRequiredTypes.self).first)
        #expect(stored.int == 0 && stored.string == "" && stored.data.isEmpty && stored.bool == false)
        #expect(stored.decimal == Decimal128(0))
        #expect(stored.any == .none)
        #expect(stored.intEnum == .first && stored.stringEnum == .alpha)
        #expect(stored.uuid == required.uuid)
        #expect(stored.objectId == required.objectId)
        let storedOptional = try #require(realm.objects(TTOptionalTypes.self).first)
        #expect(storedOptional.int == nil && storedOptional.string == nil && storedOptional.date == nil)
        #expect(storedOptional.uuid == nil && storedOptional.objectId == nil && storedOptional.intEnum == nil)
    }

    // MARK: Scalar round trips

    private static func fill(_ object: TTRequiredTypes) {
        object.bool = true
        object.int = Int.max
        object.int8 = TTSample.int8
        object.int16 = TTSample.int16
        object.int32 = TTSample.int32
        object.int64 = TTSample.int64
        object.float = TTSample.float
        object.double = TTSample.double
        object.string = TTSample.string
        object.data = TTSample.data
        object.date = TTSample.date
        object.decimal = TTSample.decimal
        object.uuid = TTSample.uuid
        object.objectId = TTSample.objectId
        object.any = .string("mixed")
        object.intEnum = .third
        object.stringEnum = .gamma
    }

    private static func check(_ object: TTRequiredTypes, _ stage: String) {
        #expect(object.bool == true, "\(stage)")
        #expect(object.int == Int.max, "\(stage)")
        #expect(object.int8 == TTSample.int8, "\(stage)")
        #expect(object.int16 == TTSample.int16, "\(stage)")
        #expect(object.int32 == TTSample.int32, "\(stage)")
        #expect(object.int64 == TTSample.int64, "\(stage)")
        #expect(object.float == TTSample.float, "\(stage)")
        #expect(object.double == TTSample.double, "\(stage)")
        #expect(object.string == TTSample.string, "\(stage)")
        #expect(object.data == TTSample.data, "\(stage)")
        #expect(ttSameDate(object.date, TTSample.date), "\(stage): \(object.date.timeIntervalSince1970)")
        #expect(object.decimal == TTSample.decimal, "\(stage)")
        #expect(object.uuid == TTSample.uuid, "\(stage)")
        #expect(object.objectId == TTSample.objectId, "\(stage)")
        #expect(object.any == .string("mixed"), "\(stage)")
        #expect(object.intEnum == .third, "\(stage)")
        #expect(object.stringEnum == .gamma, "\(stage)")
    }

    private static func fill(_ object: TTOptionalTypes) {
        object.bool = false
        object.int = Int.min
        object.int8 = TTSample.int8
        object.int16 = TTSample.int16
        object.int32 = TTSample.int32
        object.int64 = TTSample.int64
        object.float = TTSample.float
        object.double = TTSample.double
        object.string = TTSample.string
        object.data = TTSample.data
        object.date = TTSample.date
        object.decimal = TTSample.decimal
        object.uuid = TTSample.uuid
        object.objectId = TTSample.objectId
        object.intEnum = .second
        object.stringEnum = .beta
    }

    private static func check(_ object: TTOptionalTypes, _ stage: String) {
        #expect(object.bool == false, "\(stage)")
        #expect(object.int == Int.min, "\(stage)")
        #expect(object.int8 == TTSample.int8, "\(stage)")
        #expect(object.int16 == TTSample.int16, "\(stage)")
        #expect(object.int32 == TTSample.int32, "\(stage)")
        #expect(object.int64 == TTSample.int64, "\(stage)")
        #expect(object.float == TTSample.float, "\(stage)")
        #expect(object.double == TTSample.double, "\(stage)")
        #expect(object.string == TTSample.string, "\(stage)")
        #expect(object.data == TTSample.data, "\(stage)")
        #expect(ttSameDate(object.date, TTSample.date), "\(stage)")
        #expect(object.decimal == TTSample.decimal, "\(stage)")
        #expect(object.uuid == TTSample.uuid, "\(stage)")
        #expect(object.objectId == TTSample.objectId, "\(stage)")
        #expect(object.intEnum == .second, "\(stage)")
        #expect(object.stringEnum == .beta, "\(stage)")
    }

    @Test("Every required type round-trips: add, read managed, close, reopen from file, read again")
    func requiredRoundTrip() throws {
        let url = try ttTemporaryRealmURL()
        defer { ttRemoveRealm(at: url) }
        let config = ttFileConfig(url, [TTRequiredTypes.self])
        try {
            let realm = try Realm(configuration: config)
            let object = TTRequiredTypes()
            Self.fill(object)
            Self.check(object, "unmanaged")
            try realm.write { realm.add(object) }
            #expect(object.realm != nil)
            Self.check(object, "same instance, managed")
            Self.check(try #require(realm.objects(TTRequiredTypes.self).first), "new accessor")
        }()
        let realm = try Realm(configuration: config)
        #expect(realm.objects(TTRequiredTypes.self).count == 1)
        Self.check(try #require(realm.objects(TTRequiredTypes.self).first), "after reopen")
    }

    @Test("Every optional type round-trips both a value and nil through a reopened file")
    func optionalRoundTrip() throws {
        let url = try ttTemporaryRealmURL()
        defer { ttRemoveRealm(at: url) }
        let config = ttFileConfig(url, [TTOptionalTypes.self])
        try {
            let realm = try Realm(configuration: config)
            let filled = TTOptionalTypes()
            Self.fill(filled)
            let cleared = TTOptionalTypes()
            Self.fill(cleared)
            try realm.write {
                realm.add(filled)
                realm.add(cleared)
            }
            Self.check(filled, "managed")
            // Set every property of a managed object back to nil.
            try realm.write {
                cleared.bool = nil
                cleared.int = nil
                cleared.int8 = nil
                cleared.int16 = nil
                cleared.int32 = nil
                cleared.int64 = nil
                cleared.float = nil
                cleared.double = nil
                cleared.string = nil
                cleared.data = nil
                cleared.date = nil
                cleared.decimal = nil
                cleared.uuid = nil
                cleared.objectId = nil
                cleared.intEnum = nil
                cleared.stringEnum = nil
            }
        }()
        let realm = try Realm(configuration: config)
        let objects = realm.objects(TTOptionalTypes.self)
        try #require(objects.count == 2)
        Self.check(objects[0], "after reopen")
        let cleared = objects[1]
        #expect(cleared.bool == nil)
        #expect(cleared.int == nil)
        #expect(cleared.int8 == nil)
        #expect(cleared.int16 == nil)
        #expect(cleared.int32 == nil)
        #expect(cleared.int64 == nil)
        #expect(cleared.float == nil)
        #expect(cleared.double == nil)
        #expect(cleared.string == nil)
        #expect(cleared.data == nil)
        #expect(cleared.date == nil)
        #expect(cleared.decimal == nil)
        #expect(cleared.uuid == nil)
        #expect(cleared.objectId == nil)
        #expect(cleared.intEnum == nil)
        #expect(cleared.stringEnum == nil)
    }

    @Test("Values read back with their exact type: empty strings and data are not nil, Float stays Float")
    func emptyValuesAreNotNil() throws {
        let realm = try Realm(configuration: ttMemoryConfig([TTOptionalTypes.self]))
        let object = TTOptionalTypes()
        object.string = ""
        object.data = Data()
        object.int = 0
        object.bool = false
        object.float = 0.1
        object.double = 0.1
        try realm.write { realm.add(object) }
        #expect(object.string == "")
        #expect(object.data == Data())
        #expect(object.int == 0)
        #expect(object.bool == false)
        #expect(object.float == Float(0.1))
        #expect(object.double == 0.1)
    }

    @Test("Integer types keep their full range, including each type's minimum and maximum")
    func integerExtremes() throws {
        let realm = try Realm(configuration: ttMemoryConfig([TTRequiredTypes.self]))
        let low = TTRequiredTypes()
        low.int = .min
        low.int8 = .min
        low.int16 = .min
        low.int32 = .min
        low.int64 = .min
        let high = TTRequiredTypes()
        high.int = .max
        high.int8 = .max
        high.int16 = .max
        high.int32 = .max
        high.int64 = .max
        try realm.write {
            realm.add(low)
            realm.add(high)
        }
        let objects = realm.objects(TTRequiredTypes.self)
        #expect(objects[0].int == .min && objects[0].int8 == .min && objects[0].int16 == .min)
        #expect(objects[0].int32 == .min && objects[0].int64 == .min)
        #expect(objects[1].int == .max && objects[1].int8 == .max && objects[1].int16 == .max)
        #expect(objects[1].int32 == .max && objects[1].int64 == .max)
    }

    @Test("A managed property set inside a write reads the new value, for every type")
    func managedSetters() throws {
        let realm = try Realm(configuration: ttMemoryConfig([TTRequiredTypes.self]))
        let object = TTRequiredTypes()
        try realm.write { realm.add(object) }
        try realm.write { Self.fill(object) }
        Self.check(object, "set while managed")
        Self.check(try #require(realm.objects(TTRequiredTypes.self).first), "other accessor")
    }

    // MARK: Collections

    /// One element type: how to fill its List, MutableSet and Map on a holder, and how to check them.
    private struct CollectionCase<Holder: Object> {
        let name: String
        let fill: (Holder) -> Void
        let check: (Holder, String) -> Void
    }

    private static func collectionCase<Holder: Object, T: RealmCollectionValue>(
        _ name: String,
        _ list: KeyPath<Holder, List<T>>,
        _ set: KeyPath<Holder, MutableSet<T>>,
        _ map: KeyPath<Holder, Map<String, T>>,
        _ values: [T]
    ) -> CollectionCase<Holder> {
        CollectionCase(name: name, fill: { holder in
            holder[keyPath: list].append(objectsIn: values)
            holder[keyPath: set].insert(objectsIn: values)
            for (index, value) in values.enumerated() {
                holder[keyPath: map].updateValue(value, forKey: "k\(index)")
            }
        }, check: { holder, stage in
            let list = holder[keyPath: list]
            #expect(Array(list) == values, "List<\(name)> \(stage)")
            let set = holder[keyPath: set]
            let unique = values.reduce(into: [T]()) { if !$0.contains($1) { $0.append($1) } }
            #expect(set.count == unique.count, "MutableSet<\(name)> \(stage): \(Array(set))")
            for value in unique {
                #expect(set.contains(value), "MutableSet<\(name)> \(stage) contains \(value)")
            }
            #expect(Set(Array(set)) == Set(unique), "MutableSet<\(name)> \(stage)")
            let map = holder[keyPath: map]
            #expect(map.count == values.count, "Map<String, \(name)> \(stage)")
            #expect(map.keys == values.indices.map { "k\($0)" }, "Map<String, \(name)> \(stage) keys")
            for (index, value) in values.enumerated() {
                #expect(map["k\(index)"] == value, "Map<String, \(name)> \(stage) [k\(index)]")
            }
            #expect(map["missing"] == nil, "Map<String, \(name)> \(stage)")
        })
    }

    // Dates use binary-exact fractions so that they compare exactly.
    private static let dates = [Date(timeIntervalSince1970: 1_700_000_000.5), Date(timeIntervalSince1970: -86_400.25),
                                Date(timeIntervalSince1970: 1_700_000_000.5)]
    private static let uuids = [UUID(), UUID()]
    private static let objectIds = [ObjectId.generate(), ObjectId.generate()]

    private static var requiredCases: [CollectionCase<TTRequiredCollections>] {
        [
            collectionCase("Bool", \.listBool, \.setBool, \.mapBool, [true, false, true]),
            collectionCase("Int", \.listInt, \.setInt, \.mapInt, [3, -2, Int.max, 3]),
            collectionCase("Int8", \.listInt8, \.setInt8, \.mapInt8, [Int8.min, 0, 7, 7]),
            collectionCase("Int16", \.listInt16, \.setInt16, \.mapInt16, [Int16.max, -16]),
            collectionCase("Int32", \.listInt32, \.setInt32, \.mapInt32, [Int32.min, 32, 32]),
            collectionCase("Int64", \.listInt64, \.setInt64, \.mapInt64, [Int64.max, -64, 0]),
            collectionCase("Float", \.listFloat, \.setFloat, \.mapFloat, [1.5, -0.25, .greatestFiniteMagnitude, 1.5]),
            collectionCase("Double", \.listDouble, \.setDouble, \.mapDouble, [Double.pi, -1e300, 0]),
            collectionCase("String", \.listString, \.setString, \.mapString, ["b", "", "ünï 🎉", "b", "a"]),
            collectionCase("Data", \.listData, \.setData, \.mapData, [Data([1, 2]), Data(), Data([0xFF]), Data([1, 2])]),
            collectionCase("Date", \.listDate, \.setDate, \.mapDate, dates),
            collectionCase("Decimal128", \.listDecimal, \.setDecimal, \.mapDecimal,
                           ["123.456", "-1E-10", Decimal128(0), "123.456"]),
            collectionCase("UUID", \.listUUID, \.setUUID, \.mapUUID, uuids + [uuids[0]]),
            collectionCase("ObjectId", \.listObjectId, \.setObjectId, \.mapObjectId, objectIds + [objectIds[1]]),
            collectionCase("AnyRealmValue", \.listAny, \.setAny, \.mapAny,
                           [.int(1), .string("x"), .none, .double(2.5), .bool(true), .int(1), .uuid(uuids[0])]),
            collectionCase("TTIntEnum", \.listIntEnum, \.setIntEnum, \.mapIntEnum, [.second, .third, .first, .second]),
            collectionCase("TTStringEnum", \.listStringEnum, \.setStringEnum, \.mapStringEnum, [.gamma, .alpha, .gamma]),
        ]
    }

    private static var optionalCases: [CollectionCase<TTOptionalCollections>] {
        [
            collectionCase("Bool?", \.listBool, \.setBool, \.mapBool, [true, nil, false, nil]),
            collectionCase("Int?", \.listInt, \.setInt, \.mapInt, [3, nil, Int.min, 3]),
            collectionCase("Int8?", \.listInt8, \.setInt8, \.mapInt8, [nil, Int8.max, -8]),
            collectionCase("Int16?", \.listInt16, \.setInt16, \.mapInt16, [16, nil]),
            collectionCase("Int32?", \.listInt32, \.setInt32, \.mapInt32, [nil, nil, 32]),
            collectionCase("Int64?", \.listInt64, \.setInt64, \.mapInt64, [Int64.min, nil]),
            collectionCase("Float?", \.listFloat, \.setFloat, \.mapFloat, [1.5, nil, -2]),
            collectionCase("Double?", \.listDouble, \.setDouble, \.mapDouble, [nil, 2.5, 2.5]),
            collectionCase("String?", \.listString, \.setString, \.mapString, ["", nil, "s", nil]),
            collectionCase("Data?", \.listData, \.setData, \.mapData, [Data(), nil, Data([9])]),
            collectionCase("Date?", \.listDate, \.setDate, \.mapDate, [dates[0], nil, dates[1]]),
            collectionCase("Decimal128?", \.listDecimal, \.setDecimal, \.mapDecimal, ["1.5", nil, "-2"]),
            collectionCase("UUID?", \.listUUID, \.setUUID, \.mapUUID, [uuids[1], nil]),
            collectionCase("ObjectId?", \.listObjectId, \.setObjectId, \.mapObjectId, [nil, objectIds[0]]),
            collectionCase("TTIntEnum?", \.listIntEnum, \.setIntEnum, \.mapIntEnum, [.third, nil, .first]),
            collectionCase("TTStringEnum?", \.listStringEnum, \.setStringEnum, \.mapStringEnum, [nil, .beta, nil]),
        ]
    }

    @Test("List, MutableSet and Map<String, T> of every required type round-trip through a reopened file")
    func requiredCollectionsRoundTrip() throws {
        try collectionsRoundTrip(TTRequiredCollections.self, Self.requiredCases)
    }

    @Test("List, MutableSet and Map<String, T?> of every optional type keep nil elements through a reopened file")
    func optionalCollectionsRoundTrip() throws {
        try collectionsRoundTrip(TTOptionalCollections.self, Self.optionalCases)
    }

    /// Fills an object with `cases` unmanaged and another while managed, checking both before
    /// and after the file is reopened.
    private func collectionsRoundTrip<Holder: Object>(_ type: Holder.Type, _ cases: [CollectionCase<Holder>]) throws {
        let url = try ttTemporaryRealmURL()
        defer { ttRemoveRealm(at: url) }
        let config = ttFileConfig(url, [Holder.self])
        try {
            let realm = try Realm(configuration: config)
            let unmanaged = Holder()
            for testCase in cases { testCase.fill(unmanaged) }
            for testCase in cases { testCase.check(unmanaged, "unmanaged") }
            try realm.write { realm.add(unmanaged) }
            for testCase in cases { testCase.check(unmanaged, "after add") }
            // The same values appended to an already managed object.
            let managed = Holder()
            try realm.write {
                realm.add(managed)
                for testCase in cases { testCase.fill(managed) }
            }
            for testCase in cases { testCase.check(managed, "filled while managed") }
        }()
        let realm = try Realm(configuration: config)
        let objects = realm.objects(Holder.self)
        try #require(objects.count == 2)
        for testCase in cases {
            testCase.check(objects[0], "after reopen (added)")
            testCase.check(objects[1], "after reopen (filled managed)")
        }
    }

    @Test("Assigning nil through a Map subscript removes the key; updateValue(nil) keeps it with a nil value")
    func mapNilSemantics() throws {
        let realm = try Realm(configuration: ttMemoryConfig([TTOptionalCollections.self]))
        let object = TTOptionalCollections()
        try realm.write { realm.add(object) }
        try realm.write {
            object.mapInt["a"] = 1
            object.mapInt["b"] = 2
            object.mapInt.updateValue(nil, forKey: "c")
        }
        #expect(object.mapInt.count == 3)
        #expect(object.mapInt["c"] == .some(nil))
        try realm.write { object.mapInt["a"] = nil }
        #expect(object.mapInt.count == 2)
        #expect(object.mapInt["a"] == nil)
        #expect(object.mapInt.keys == ["b", "c"])
    }

    // MARK: Links, embedded objects, backlinks

    @Test("Links, embedded objects, lists of objects and of embedded objects round-trip through a reopened file")
    func relationshipsRoundTrip() throws {
        let url = try ttTemporaryRealmURL()
        defer { ttRemoveRealm(at: url) }
        let config = ttFileConfig(url, [TTLinkHolder.self, TTTarget.self, TTEmbedded.self, TTEmbeddedChild.self])
        try {
            let realm = try Realm(configuration: config)
            let first = TTTarget(value: ["name": "first"])
            let second = TTTarget(value: ["name": "second"])
            let holder = TTLinkHolder()
            holder.name = "holder"
            holder.link = first
            holder.embedded = TTEmbedded(value: ["label": "solo", "value": 1, "child": ["note": "nested"]] as [String: Any])
            holder.targets.append(objectsIn: [first, second, first])
            holder.embeddedList.append(TTEmbedded(value: ["label": "e0", "value": 10] as [String: Any]))
            holder.embeddedList.append(TTEmbedded(value: ["label": "e1", "value": 11] as [String: Any]))
            holder.targetSet.insert(objectsIn: [second, first, second])
            holder.targetMap["one"] = first
            holder.targetMap.updateValue(nil, forKey: "none")
            holder.embeddedMap["e"] = TTEmbedded(value: ["label": "mapped", "value": 5] as [String: Any])
            try realm.write { realm.add(holder) }
            #expect(first.realm != nil && second.realm != nil, "linked unmanaged objects are added with the holder")
            #expect(realm.objects(TTTarget.self).count == 2)
            #expect(holder.link?.name == "first")
            #expect(holder.embedded?.child?.note == "nested")
            #expect(holder.targets.map(\.name) == ["first", "second", "first"])
        }()
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(TTLinkHolder.self).first)
        // Follow the links before anything else asks for the target classes.
        #expect(holder.link?.realm != nil, "a link read after reopening is a managed accessor")
        #expect(holder.embedded?.realm != nil, "an embedded object read after reopening is a managed accessor")
        #expect(holder.name == "holder")
        #expect(holder.link?.name == "first")
        #expect(holder.embedded?.label == "solo")
        #expect(holder.embedded?.value == 1)
        #expect(holder.embedded?.child?.note == "nested")
        #expect(holder.targets.map(\.name) == ["first", "second", "first"])
        #expect(holder.targets[0] == holder.targets[2] || holder.targets[0].isSameObject(as: holder.targets[2]))
        #expect(holder.embeddedList.map(\.label) == ["e0", "e1"])
        #expect(holder.embeddedList.map(\.value) == [10, 11])
        #expect(Set(holder.targetSet.map(\.name)) == ["first", "second"])
        #expect(holder.targetSet.count == 2)
        #expect(holder.targetMap.count == 2)
        #expect(holder.targetMap["one"]??.name == "first")
        #expect(holder.targetMap["none"] == .some(nil))
        #expect(holder.embeddedMap["e"]??.label == "mapped")
        #expect(realm.objects(TTTarget.self).count == 2)
    }

    @Test("LinkingObjects count every object linking through the origin property, each once, and survive reopening")
    func linkingObjectsCounts() throws {
        let url = try ttTemporaryRealmURL()
        defer { ttRemoveRealm(at: url) }
        let config = ttFileConfig(url, [TTLinkHolder.self, TTTarget.self, TTEmbedded.self, TTEmbeddedChild.self])
        try {
            let realm = try Realm(configuration: config)
            let first = TTTarget(value: ["name": "first"])
            let second = TTTarget(value: ["name": "second"])
            let lonely = TTTarget(value: ["name": "lonely"])
            let holderA = TTLinkHolder(value: ["name": "A"])
            let holderB = TTLinkHolder(value: ["name": "B"])
            holderA.link = first
            holderB.link = first
            holderA.targets.append(objectsIn: [first, second, first])
            holderB.targets.append(second)
            holderB.targetSet.insert(first)
            try realm.write {
                realm.add([holderA, holderB])
                realm.add(lonely)
            }
            #expect(first.viaLink.count == 2)
            #expect(first.viaList.count == 1, "a list holding an object twice links from one object")
            #expect(second.viaList.count == 2)
            #expect(second.viaLink.count == 0)
            #expect(first.viaSet.map(\.name) == ["B"])
            #expect(lonely.viaLink.isEmpty && lonely.viaList.isEmpty)
            // Backlinks are live: unlinking updates the count.
            try realm.write { holderB.link = nil }
            #expect(first.viaLink.map(\.name) == ["A"])
        }()
        let realm = try Realm(configuration: config)
        let targets = realm.objects(TTTarget.self)
        let first = try #require(targets.first { $0.name == "first" })
        let second = try #require(targets.first { $0.name == "second" })
        #expect(first.viaLink.count == 1)
        #expect(first.viaLink.first?.name == "A")
        #expect(first.viaList.count == 1)
        #expect(Set(second.viaList.map(\.name)) == ["A", "B"])
        #expect(first.viaSet.count == 1)
    }

    @Test("Deleting a linked object clears the link and shrinks the lists that held it")
    func deletingTargetsUpdatesLinks() throws {
        let realm = try Realm(configuration: ttMemoryConfig([TTLinkHolder.self, TTTarget.self]))
        let target = TTTarget(value: ["name": "doomed"])
        let keep = TTTarget(value: ["name": "keep"])
        let holder = TTLinkHolder()
        holder.link = target
        holder.targets.append(objectsIn: [target, keep, target])
        holder.targetMap["t"] = target
        try realm.write { realm.add(holder) }
        try realm.write { realm.delete(target) }
        #expect(target.isInvalidated)
        #expect(holder.link == nil)
        #expect(holder.targets.map(\.name) == ["keep"])
        #expect(holder.targetMap.count == 1, "the key stays with a nil value")
        #expect(holder.targetMap["t"] == .some(nil))
    }

    @Test("Replacing an embedded object deletes the old one; deleting the parent deletes its embedded objects")
    func embeddedOwnership() throws {
        let realm = try Realm(configuration: ttMemoryConfig([TTLinkHolder.self, TTTarget.self]))
        let holder = TTLinkHolder()
        holder.embedded = TTEmbedded(value: ["label": "old", "value": 1] as [String: Any])
        holder.embeddedList.append(TTEmbedded(value: ["label": "listed", "value": 2] as [String: Any]))
        try realm.write { realm.add(holder) }
        let old = try #require(holder.embedded)
        let listed = holder.embeddedList[0]
        #expect(old.realm != nil)
        try realm.write { holder.embedded = TTEmbedded(value: ["label": "new", "value": 3] as [String: Any]) }
        #expect(old.isInvalidated, "the replaced embedded object is deleted")
        #expect(holder.embedded?.label == "new")
        let replacement = try #require(holder.embedded)
        try realm.write { realm.delete(holder) }
        #expect(replacement.isInvalidated)
        #expect(listed.isInvalidated)
    }

    // MARK: Enums

    @Test("A stored raw value that matches no case reads as nil for an optional enum property")
    func unknownEnumRawValueReadsNil() throws {
        let url = try ttTemporaryRealmURL()
        defer { ttRemoveRealm(at: url) }
        try {
            let realm = try Realm(configuration: ttFileConfig(url, [TTEnumHolderTwin.self]))
            try realm.write {
                realm.add(TTEnumHolderTwin(value: ["intEnum": 99, "stringEnum": "zeta"] as [String: Any]))
                realm.add(TTEnumHolderTwin(value: ["intEnum": 2, "stringEnum": "beta"] as [String: Any]))
            }
        }()
        let realm = try Realm(configuration: ttFileConfig(url, [TTEnumHolder.self]))
        let objects = realm.objects(TTEnumHolder.self)
        try #require(objects.count == 2)
        #expect(objects[0].intEnum == nil)
        #expect(objects[0].stringEnum == nil)
        #expect(objects[1].intEnum == .second)
        #expect(objects[1].stringEnum == .beta)
    }

    @Test("Enums are stored as their raw values")
    func enumsStoreRawValues() throws {
        let realm = try Realm(configuration: ttMemoryConfig([TTRequiredTypes.self]))
        let object = TTRequiredTypes()
        object.intEnum = .third
        object.stringEnum = .beta
        try realm.write { realm.add(object) }
        #expect(object["intEnum"] as? TTIntEnum == .third)
        let schema = object.objectSchema
        #expect(schema["intEnum"]?.type == .int)
        #expect(schema["stringEnum"]?.type == .string)
    }

    // MARK: Schema

    @Test("The object schema names each property's Realm type and optionality")
    func schemaTypes() throws {
        let schema = TTRequiredTypes().objectSchema
        let expected: [(String, PropertyType)] = [
            ("bool", .bool), ("int", .int), ("int8", .int), ("int16", .int), ("int32", .int), ("int64", .int),
            ("float", .float), ("double", .double), ("string", .string), ("data", .data), ("date", .date),
            ("decimal", .decimal128), ("uuid", .UUID), ("objectId", .objectId), ("any", .any),
            ("intEnum", .int), ("stringEnum", .string),
        ]
        #expect(schema.properties.map(\.name) == expected.map(\.0))
        for (name, type) in expected {
            #expect(schema[name]?.type == type, "\(name)")
            if name != "any" { #expect(schema[name]?.isOptional == false, "\(name)") }
        }
        let optional = TTOptionalTypes().objectSchema
        #expect(optional.properties.allSatisfy { $0.isOptional })
        let links = TTLinkHolder().objectSchema
        #expect(links["link"]?.type == .object)
        #expect(links["link"]?.objectClassName == "TTTarget")
        #expect(links["targets"]?.isArray == true)
        #expect(links["targetSet"]?.isSet == true)
        #expect(links["targetMap"]?.isMap == true)
        #expect(TTTarget().objectSchema["viaLink"]?.type == .linkingObjects)
        #expect(TTEmbedded().objectSchema.isEmbedded)
    }
}
