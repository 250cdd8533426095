import Foundation
@testable import Strata
import Testing

@Suite("Validating key paths for observers")
struct KeyPathValidationTests {
    /// Registers `observe(validatingKeyPaths:)` on the loop thread with `keyPaths`; returns the
    /// error's message, or nil when it registered (the token is invalidated at once).
    private func refusal(_ keyPaths: [String]?, fixture: NotificationFixture) throws -> String? {
        try fixture.harness.run {
            let people = try fixture.realm().objects(NotePerson.self)
            do {
                let token = try people.observe(validatingKeyPaths: keyPaths) { _ in }
                token.invalidate()
                return nil
            } catch let error as Realm.Error {
                #expect(error.code == .invalidQuery)
                return error.localizedDescription
            }
        }
    }

    @Test("unknown properties, empty components and paths past a value throw invalidQuery instead of trapping",
          arguments: [
              (["nope"], "property 'nope' not found in object of type 'NotePerson'"),
              (["@links"], "property '@links' not found"),
              (["NotePerson.id"], "property 'NotePerson' not found"),
              (["dogs.nope"], "property 'nope' not found in object of type 'NoteDog'"),
              (["id..name"], "no empty component"),
              (["."], "no empty component"),
              ([""], "no empty component"),
              (["dogs."], "no empty component"),
              (["name", "name.count"], "property 'name' of 'NotePerson' is not a link"),
          ])
    func refusals(keyPaths: [String], message: String) throws {
        let fixture = try NotificationFixture()
        let refused = try #require(try refusal(keyPaths, fixture: fixture))
        #expect(refused.contains(message), "\(refused)")
    }

    @Test("valid key paths through links, lists, maps and backlinks register, as do nil and []",
          arguments: [nil, [], ["name"], ["dogs"], ["dogs.name", "dogs.owner.name"], ["pets.age"], ["ownedDogs.age"],
                      ["address"]] as [[String]?])
    func accepted(keyPaths: [String]?) throws {
        let fixture = try NotificationFixture()
        #expect(try refusal(keyPaths, fixture: fixture) == nil)
    }

    @Test("a validated observer filters like observe(keyPaths:)")
    func filtersLikeTheTrappingForm() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let token = try fixture.observe { realm in
            try! realm.objects(NotePerson.self).observe(validatingKeyPaths: ["dogs.name"]) {
                fixture.harness.record(describe($0))
            }
        }
        try fixture.write { fixture.dog($0, 1).age = 99 }   // not observed
        try fixture.write { fixture.dog($0, 1).name = "renamed" }
        #expect(fixture.harness.waitForEvents(2).last == "d[] i[] m[0]")
        #expect(fixture.harness.settledEvents().count == 2)
        fixture.harness.run { token.invalidate() }
    }

    @Test("an object observer validates too, and a collection of values refuses key paths")
    func objectsAndValues() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        try fixture.harness.run {
            let realm = try fixture.realm()
            let dog = fixture.dog(realm, 0)
            #expect(throws: Realm.Error.self) {
                try dog.observe(validatingKeyPaths: ["owner.nope"]) { (_: ObjectChange<NoteDog>) in }
            }
            let token = try dog.observe(validatingKeyPaths: ["owner.name"]) { (_: ObjectChange<NoteDog>) in }
            token.invalidate()
        }
    }
}
