import Foundation
@testable import Strata
import Testing

// The seed examples of type projection (REALM-SEMANTICS.md §1.1 "Type projection") must compile
// and round-trip: URL as a FailableCustomPersistable String, CGPoint as a CustomPersistable
// embedded object, in properties, optionals, Map and List; and generic code over Realm
// collections.

// MARK: - The seed examples

extension URL: FailableCustomPersistable {
    public typealias PersistedType = String
    public init?(persistedValue: String) { self.init(string: persistedValue) }
    public var persistableValue: String { absoluteString }
}

public class CGPointObject: EmbeddedObject {
    @Persisted var x: Double
    @Persisted var y: Double
}

extension CGPoint: CustomPersistable {
    public typealias PersistedType = CGPointObject
    public init(persistedValue: CGPointObject) {
        self.init(x: persistedValue.x, y: persistedValue.y)
    }
    // The Realm docs write `CGPointObject(value: [x, y])`; on Linux that traps (see
    // `seedValueInitializerAcceptsCGFloat`), so the components are set one by one.
    public var persistableValue: CGPointObject {
        let object = CGPointObject()
        object.x = Double(x)
        object.y = Double(y)
        return object
    }
}

final class SeedPlace: Object {
    @Persisted var name: String
    @Persisted var url: URL
    @Persisted var optionalURL: URL?
    @Persisted var point: CGPoint
    @Persisted var urls: Map<String, URL>
    @Persisted var points: List<CGPoint>
    @Persisted var pointMap: Map<String, CGPoint>
}

/// A holder of optional URLs whose file is written through `SeedURLHolderTwin`.
final class SeedURLHolder: Object {
    @Persisted var optionalURL: URL?
    @Persisted var urlList: List<URL?>
}

/// The same class name and columns as `SeedURLHolder`, typed as the persisted String, so that a
/// test can store a string that is not a URL.
final class SeedURLHolderTwin: Object {
    override class func className() -> String { "SeedURLHolder" }
    @Persisted var optionalURL: String?
    @Persisted var urlList: List<String?>
}

/// A failable projection whose stored form does not always convert back: strings that start
/// with "invalid:" have no value.
struct SeedTag: FailableCustomPersistable, Hashable {
    typealias PersistedType = String
    let raw: String
    init(raw: String) { self.raw = raw }
    init?(persistedValue: String) {
        guard !persistedValue.hasPrefix("invalid:") else { return nil }
        raw = persistedValue
    }
    var persistableValue: String { raw }
}

final class SeedTagged: Object {
    @Persisted var tag: SeedTag?
    @Persisted var tags: List<SeedTag?>
    @Persisted var tagMap: Map<String, SeedTag?>
    @Persisted var requiredTag = SeedTag(raw: "required")
}

final class SeedItem: Object {
    @Persisted var name: String
    @Persisted var weight: Int
}

final class SeedBag: Object {
    @Persisted var items: List<SeedItem>
}

/// Generic code over any sequence of Realm objects, as app code writes before
/// `RealmCollection` exists.
func operateOn<C: Sequence>(collection: C) -> Int where C.Element: Object {
    var managed = 0
    for object in collection where object.realm != nil && !object.isInvalidated {
        managed += 1
    }
    return managed
}

/// Generic code that reads a property through a constrained element type.
private func seedTotalWeight<C: Sequence>(_ collection: C) -> Int where C.Element: SeedItem {
    collection.reduce(0) { $0 + $1.weight }
}

// MARK: - Helpers

private func seedTemporaryRealmURL() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-seed-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("seed.strata")
}

private func seedRemoveRealm(at url: URL) {
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

private func seedMemoryConfig(_ types: [ObjectBase.Type]) -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "seed-\(UUID().uuidString)", objectTypes: types)
}

// MARK: - Tests

@Suite("Seed examples")
struct SeedExampleTests {
    private static let home = URL(string: "https://example.com/home?q=1#top")!
    private static let docs = URL(string: "file:///tmp/docs/readme.md")!

    private static func makePlace() -> SeedPlace {
        let place = SeedPlace()
        place.name = "origin"
        place.url = home
        place.optionalURL = docs
        place.point = CGPoint(x: 1.5, y: -2.25)
        place.urls["home"] = home
        place.urls["docs"] = docs
        place.points.append(CGPoint(x: 0, y: 0))
        place.points.append(CGPoint(x: 3, y: 4))
        place.points.append(CGPoint(x: 3, y: 4))
        return place
    }

    private static func check(_ place: SeedPlace, _ stage: String) {
        #expect(place.url == home, "\(stage)")
        #expect(place.optionalURL == docs, "\(stage)")
        #expect(place.point == CGPoint(x: 1.5, y: -2.25), "\(stage): \(place.point)")
        #expect(place.urls.count == 2, "\(stage)")
        #expect(place.urls.keys == ["docs", "home"], "\(stage)")
        #expect(place.urls["home"] == home, "\(stage)")
        #expect(place.urls["docs"] == docs, "\(stage)")
        #expect(Array(place.points) == [CGPoint(x: 0, y: 0), CGPoint(x: 3, y: 4), CGPoint(x: 3, y: 4)],
                "\(stage): \(Array(place.points))")
    }

    @Test("The seed model's URL, URL?, CGPoint, Map<String, URL> and List<CGPoint> round-trip through a reopened file")
    func seedModelRoundTrip() throws {
        let url = try seedTemporaryRealmURL()
        defer { seedRemoveRealm(at: url) }
        let config = Realm.Configuration(fileURL: url, objectTypes: [SeedPlace.self, CGPointObject.self])
        try {
            let realm = try Realm(configuration: config)
            let place = Self.makePlace()
            Self.check(place, "unmanaged")
            try realm.write { realm.add(place) }
            #expect(place.realm != nil)
            Self.check(place, "managed")
            Self.check(try #require(realm.objects(SeedPlace.self).first), "new accessor")
        }()
        let realm = try Realm(configuration: config)
        let place = try #require(realm.objects(SeedPlace.self).first)
        Self.check(place, "after reopen")
    }

    @Test("The schema stores URL as a string and CGPoint as an embedded CGPointObject")
    func seedSchema() {
        let schema = SeedPlace().objectSchema
        #expect(schema["url"]?.type == .string)
        #expect(schema["url"]?.isOptional == false)
        #expect(schema["optionalURL"]?.type == .string)
        #expect(schema["optionalURL"]?.isOptional == true)
        #expect(schema["point"]?.type == .object)
        #expect(schema["point"]?.objectClassName == "CGPointObject")
        #expect(schema["urls"]?.isMap == true)
        #expect(schema["urls"]?.type == .string)
        #expect(schema["points"]?.isArray == true)
        #expect(schema["points"]?.objectClassName == "CGPointObject")
        #expect(CGPointObject().objectSchema.isEmbedded)
    }

    @Test("Projected properties and collections can be changed on a managed object")
    func seedModelMutation() throws {
        let realm = try Realm(configuration: seedMemoryConfig([SeedPlace.self, CGPointObject.self]))
        let place = Self.makePlace()
        try realm.write { realm.add(place) }
        let moved = URL(string: "https://example.org/moved")!
        try realm.write {
            place.url = moved
            place.optionalURL = nil
            place.point = CGPoint(x: 10, y: 20)
            place.urls["moved"] = moved
            place.urls["docs"] = nil
            place.points[0] = CGPoint(x: -1, y: -1)
            place.points.remove(at: 2)
            place.points.append(CGPoint(x: 7, y: 8))
        }
        #expect(place.url == moved)
        #expect(place.optionalURL == nil)
        #expect(place.point == CGPoint(x: 10, y: 20))
        #expect(place.urls.keys == ["home", "moved"])
        #expect(place.urls["moved"] == moved)
        #expect(Array(place.points) == [CGPoint(x: -1, y: -1), CGPoint(x: 3, y: 4), CGPoint(x: 7, y: 8)])
        // The URL is stored as its string, and dynamic access sees the persisted type, as in Realm.
        #expect(place["url"] as? String == moved.absoluteString)
    }

    @Test("Object(value:) and create accept the projected types and their persisted forms")
    func seedCreateFromValues() throws {
        let realm = try Realm(configuration: seedMemoryConfig([SeedPlace.self, CGPointObject.self]))
        let place = try realm.write {
            realm.create(SeedPlace.self, value: [
                "name": "created",
                "url": Self.home,
                "optionalURL": "https://example.com/from-string",
                "point": CGPoint(x: 2, y: 3),
                "urls": ["a": Self.docs],
                "points": [CGPoint(x: 5, y: 6)],
            ] as [String: Any])
        }
        #expect(place.url == Self.home)
        #expect(place.optionalURL == URL(string: "https://example.com/from-string"))
        #expect(place.point == CGPoint(x: 2, y: 3))
        #expect(place.urls["a"] == Self.docs)
        #expect(Array(place.points) == [CGPoint(x: 5, y: 6)])
    }

    @Test("nil or NSNull for a required value stored as an embedded object is the value of a new object, as in Realm")
    func absentEmbeddedProjectionIsDefault() throws {
        let realm = try Realm(configuration: seedMemoryConfig([SeedPlace.self, CGPointObject.self]))
        let values: [String: Any] = ["point": NSNull(), "url": Self.home]
        #expect(SeedPlace(value: values).point == .zero)
        let place = try realm.write { realm.create(SeedPlace.self, value: values) }
        #expect(place.point == .zero)
        // In a map too.
        let map = try realm.write {
            realm.create(SeedPlace.self, value: ["url": Self.home, "pointMap": ["a": NSNull()]] as [String: Any])
        }
        #expect(map.pointMap["a"] == .zero)
        // Not in a list: the elements are stored as given, and a null element is not a point.
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(SeedPlace.self, value: ["url": Self.home, "points": [NSNull()]] as [String: Any]) }
        }
    }

    @Test("a required failable projection whose stored value does not convert traps with Realm's message")
    func requiredFailableTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try! Realm(configuration: seedMemoryConfig([SeedTagged.self]))
            let tagged = SeedTagged()
            tagged.requiredTag = SeedTag(raw: "invalid:4")
            try! realm.write { realm.add(tagged) }
            _ = tagged.requiredTag
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Failed to convert persisted value 'invalid:4' to type 'SeedTag' in a non-optional context."))
    }

    @Test("An optional URL whose stored string is not a URL reads as nil, in a property and in a list")
    func optionalURLWithInvalidStoredString() throws {
        let url = try seedTemporaryRealmURL()
        defer { seedRemoveRealm(at: url) }
        try {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [SeedURLHolderTwin.self]))
            let twin = SeedURLHolderTwin()
            twin.optionalURL = ""
            twin.urlList.append(objectsIn: ["", "https://example.com/ok", nil])
            try realm.write { realm.add(twin) }
        }()
        #expect(URL(string: "") == nil, "premise: the empty string is not a URL")
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [SeedURLHolder.self]))
        let holder = try #require(realm.objects(SeedURLHolder.self).first)
        #expect(holder.optionalURL == nil)
        #expect(Array(holder.urlList) == [nil, URL(string: "https://example.com/ok"), nil])
    }

    @Test("A failable projection whose stored value does not convert reads nil through optionals")
    func failableProjectionReadsNil() throws {
        let realm = try Realm(configuration: seedMemoryConfig([SeedTagged.self]))
        let tagged = SeedTagged()
        tagged.tag = SeedTag(raw: "invalid:1")
        tagged.tags.append(objectsIn: [SeedTag(raw: "good"), SeedTag(raw: "invalid:2"), nil])
        tagged.tagMap["bad"] = SeedTag(raw: "invalid:3")
        tagged.tagMap["good"] = SeedTag(raw: "fine")
        try realm.write { realm.add(tagged) }
        #expect(tagged.tag == nil, "the stored 'invalid:1' does not convert back")
        #expect(Array(tagged.tags) == [SeedTag(raw: "good"), nil, nil])
        #expect(tagged.tagMap.count == 2)
        #expect(tagged.tagMap["bad"] == .some(nil))
        #expect(tagged.tagMap["good"] == SeedTag(raw: "fine"))
        #expect(tagged.requiredTag == SeedTag(raw: "required"))
        try realm.write { tagged.tag = SeedTag(raw: "valid") }
        #expect(tagged.tag == SeedTag(raw: "valid"))
    }

    @Test("A generic function over Sequence of Object works on Results and on a List")
    func genericOverCollections() throws {
        let realm = try Realm(configuration: seedMemoryConfig([SeedBag.self, SeedItem.self]))
        let bag = SeedBag()
        bag.items.append(objectsIn: [
            SeedItem(value: ["name": "a", "weight": 1] as [String: Any]),
            SeedItem(value: ["name": "b", "weight": 2] as [String: Any]),
        ])
        #expect(operateOn(collection: bag.items) == 0, "unmanaged items are not counted")
        #expect(seedTotalWeight(bag.items) == 3)
        try realm.write {
            realm.add(bag)
            realm.add(SeedItem(value: ["name": "loose", "weight": 10] as [String: Any]))
        }
        #expect(operateOn(collection: realm.objects(SeedItem.self)) == 3)
        #expect(operateOn(collection: bag.items) == 2)
        #expect(operateOn(collection: realm.objects(SeedBag.self)) == 1)
        #expect(seedTotalWeight(realm.objects(SeedItem.self)) == 13)
        #expect(seedTotalWeight(bag.items) == 3)
        try realm.write { realm.delete(bag.items[0]) }
        #expect(operateOn(collection: bag.items) == 1)
        #expect(operateOn(collection: realm.objects(SeedItem.self)) == 2)
    }

    @Test("Loose conversion of a CGFloat to a Double property succeeds (needed by CGPointObject(value: [x, y]))")
    func cgFloatConvertsToDouble() {
        #expect(Double._rlmFromAny(CGFloat(1.5)) == 1.5)
        #expect(Float._rlmFromAny(CGFloat(1.5)) == 1.5)
    }

    @Test("The Realm docs' persistableValue, CGPointObject(value: [x, y]) with CGFloat components, does not trap")
    func seedValueInitializerAcceptsCGFloat() async {
        await #expect(processExitsWith: .success) {
            let point = CGPoint(x: 1.5, y: -2)
            let object = CGPointObject(value: [point.x, point.y])
            precondition(object.x == 1.5 && object.y == -2)
        }
    }
}
