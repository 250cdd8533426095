import Foundation
@testable import Strata
import Testing

// Dynamic access sees the persisted type, as Realm's schema does: a `URL` property
// (FailableCustomPersistable stored as `String`, declared in SeedExampleTests) reads and takes
// a `String` through `object["url"]`.

final class DynamicLink: Object {
    @Persisted var name: String
    @Persisted var url: URL?
    @Persisted var homepage: URL = URL(string: "https://example.com")!
}

@Suite("Dynamic access to custom-persisted properties as in Realm Swift")
struct DynamicAccessTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-\(UUID().uuidString)",
                                                     objectTypes: [DynamicLink.self]))
    }

    @Test("object[\"url\"] on a URL property stored as a String reads a String, managed or not")
    func dynamicReadGivesPersistedType() throws {
        let link = DynamicLink()
        link.url = URL(string: "https://strata.dev/a")
        #expect(link["url"] as? String == "https://strata.dev/a")
        #expect(link["homepage"] as? String == "https://example.com")
        let realm = try realm()
        try realm.write { realm.add(link) }
        #expect(link["url"] as? String == "https://strata.dev/a")
        #expect(link["homepage"] as? String == "https://example.com")
        #expect(link.objectSchema.properties.first { $0.name == "url" }?.type == .string)
    }

    @Test("Setting a String that is not a URL through dynamic access succeeds; the typed optional read is nil")
    func invalidStringThroughDynamicAccess() throws {
        let realm = try realm()
        let link = DynamicLink()
        try realm.write { realm.add(link) }
        let invalid = "http://[not a url"
        #expect(URL(string: invalid) == nil)
        try realm.write { link["url"] = invalid }
        #expect(link["url"] as? String == invalid)
        #expect(link.url == nil)
        // A URL value is still accepted dynamically, and nil clears.
        try realm.write { link["url"] = URL(string: "https://strata.dev/b")! }
        #expect(link.url == URL(string: "https://strata.dev/b"))
        try realm.write { link["url"] = nil }
        #expect(link["url"] == nil)
        #expect(DynamicLink()["url"] == nil)
        #expect(link.url == nil)
    }

    @Test("a LinkingObjects property read by name finds its objects; an empty AnyRealmValue reads as nil")
    func linkingObjectsAndEmptyMixedByName() throws {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: "dynamic-linking-\(UUID())",
            objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self, InputPerson.self, InputAddress.self, InputPet.self]))
        let person = try realm.write {
            let person = realm.create(NotePerson.self, value: ["id": 1])
            realm.create(NoteDog.self, value: ["id": 1, "name": "Rex", "owner": person])
            return person
        }
        let owned = try #require(person["ownedDogs"] as? LinkingObjects<NoteDog>)
        #expect(owned.map(\.name) == ["Rex"])
        let input = try realm.write { realm.create(InputPerson.self, value: ["id": 1]) }
        #expect(input["extra"] == nil && input.value(forKey: "extra") == nil)
        try realm.write { input.extra = .int(3) }
        #expect(input["extra"] as? AnyRealmValue == .int(3))
    }
}
