import Foundation
import RealmSwift
import Testing

private struct Tag: CustomPersistable, Hashable {
    typealias PersistedType = String
    let text: String
    init(persistedValue: String) { text = persistedValue }
    var persistableValue: String { text }
}

private final class Sighting: Object {
    @Persisted var name: String
    @Persisted(indexed: true) var tag: Tag
    @Persisted(indexed: true) var optionalTag: Tag?
}

private final class SightingName: Projection<Sighting> {
    @Projected(\Sighting.name) var name: String
}

/// Opens Realms on itself, as an application's actor calls `Realm.open`.
private actor RealmOpener {
    func openTwice(_ configuration: Realm.Configuration) async throws -> Bool {
        let opened = try await Realm.open(configuration: configuration)
        let confined = try await Realm(configuration: configuration, actor: self)
        return opened == confined && opened.objects(Sighting.self).isEmpty
    }
}

private func memoryConfiguration() -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [Sighting.self])
}

@Suite("Realm Swift API its own tests use")
struct RealmSwiftSmallerAPITests {
    @Test("Realms are equal when they are the same Realm: an object's Realm, the same file on the same thread")
    func realmEquality() throws {
        let configuration = memoryConfiguration()
        let realm = try Realm(configuration: configuration)
        let sighting = Sighting()
        try realm.write { realm.add(sighting) }
        #expect(sighting.realm == realm)
        #expect(try Realm(configuration: configuration) == realm)
        #expect(realm.freeze() != realm)
        #expect(try Realm(configuration: memoryConfiguration()) != realm)
    }

    @Test("Realm.open opens the calling actor's Realm")
    func openOnTheCallingActor() async throws {
        #expect(try await RealmOpener().openTwice(memoryConfiguration()))
    }

    @Test("GeoPoint takes an altitude: compared by equality, refused when negative or not a number")
    func geoPointAltitude() throws {
        let high = try #require(GeoPoint(latitude: 10, longitude: 20, altitude: 100))
        #expect(high.altitude == 100)
        #expect(GeoPoint(latitude: 10, longitude: 20)?.altitude == 0)
        #expect(GeoPoint(latitude: 10, longitude: 20, altitude: 100) == high)
        #expect(GeoPoint(latitude: 10, longitude: 20, altitude: 5) != high)
        #expect(GeoPoint(latitude: 10, longitude: 20, altitude: -1) == nil)
        #expect(GeoPoint(latitude: 10, longitude: 20, altitude: .nan) == nil)
    }

    @Test("a projection freezes, reports isFrozen, thaws and passes through a ThreadSafeReference")
    func projectionFreezeAndThaw() throws {
        let realm = try Realm(configuration: memoryConfiguration())
        let sighting = Sighting()
        sighting.name = "heron"
        try realm.write { realm.add(sighting) }
        let view = SightingName(projecting: sighting)
        #expect(!view.isFrozen)
        let frozen = view.freeze()
        #expect(frozen.isFrozen)
        #expect(frozen.name == "heron")
        try realm.write { sighting.name = "egret" }
        #expect(frozen.name == "heron")
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.name == "egret")
        let confined: any ThreadConfined = view
        #expect(confined.realm == realm)
        let reference = ThreadSafeReference(to: view)
        let resolved = try #require(try Realm(configuration: realm.configuration).resolve(reference))
        #expect(resolved.name == "egret")
    }

    @Test("@Persisted(indexed: true) indexes a CustomPersistable whose persisted type is indexable")
    func indexedCustomPersistable() throws {
        let realm = try Realm(configuration: memoryConfiguration())
        let sighting = Sighting()
        sighting.tag = Tag(persistedValue: "wader")
        try realm.write { realm.add(sighting) }
        let schema = try #require(realm.schema["Sighting"])
        #expect(schema["tag"]?.isIndexed == true)
        #expect(schema["optionalTag"]?.isIndexed == true)
        #expect(realm.objects(Sighting.self).where { $0.tag == Tag(persistedValue: "wader") }.count == 1)
    }
}

private final class Inventory: Object {
    @Persisted var counts: Map<String, Int>
    @Persisted var optionalCounts: Map<String, Int?>
}

@Suite("Map's string-keyed access")
struct MapKeyValueCodingTests {
    @Test("value(forKey:) reads an entry and setValue(_:forKey:) converts, writes and removes entries")
    func stringKeyedAccess() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [Inventory.self])
        let realm = try Realm(configuration: configuration)
        let inventory = Inventory()
        try realm.write {
            realm.add(inventory)
            inventory.counts.setValue(3, forKey: "apples")
            inventory.counts.setValue(Int64(5), forKey: "pears")
            inventory.optionalCounts.setValue(NSNull(), forKey: "plums")
        }
        #expect(inventory.counts.value(forKey: "apples") as? Int == 3)
        #expect(inventory.counts.value(forKey: "pears") as? Int == 5)
        #expect(inventory.counts.value(forKey: "figs") == nil)
        #expect(inventory.optionalCounts.count == 1)
        #expect(inventory.optionalCounts["plums"] == .some(nil))
        try realm.write { inventory.counts.setValue(nil, forKey: "apples") }
        #expect(Array(inventory.counts.keys) == ["pears"])
    }
}
