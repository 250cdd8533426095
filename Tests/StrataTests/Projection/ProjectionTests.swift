import Foundation
@testable import Strata
import Testing
import StrataTestSupport

final class ProjAddress: EmbeddedObject {
    @Persisted var city: String
    @Persisted var country: String
}

final class ProjPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
    @Persisted var address: ProjAddress?
    @Persisted var bestFriend: ProjPerson?
    @Persisted var friends: List<ProjPerson>
    @Persisted var clubs: MutableSet<ProjPerson>
}

final class PersonProjection: Projection<ProjPerson> {
    @Projected(\ProjPerson.firstName) var firstName
    @Projected(\ProjPerson.lastName) var surname
    @Projected(\ProjPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\ProjPerson.address?.city) var homeCity
    @Projected(\ProjPerson.address!.country) var homeCountry
    @Projected(\ProjPerson.bestFriend?.firstName) var bestFriendName
    @Projected(\ProjPerson.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
    @Projected(\ProjPerson.clubs.projectTo.age) var clubAges: ProjectedCollection<Int>
}

/// A projection that leaves most of the root out, to show what observation ignores.
final class NameProjection: Projection<ProjPerson> {
    @Projected(\ProjPerson.firstName) var name
}

/// A projection of an embedded object.
final class AddressProjection: Projection<ProjAddress> {
    @Projected(\ProjAddress.city) var town
}

/// A Realm of the projection models on a loop thread, for the notification tests.
private struct ProjectionFixture {
    let harness: LoopHarness
    let configuration: Realm.Configuration
    /// The loop thread's Realm, kept open so the in-memory store lives for the whole test.
    let loopRealm: UncheckedBox<Realm?> = UncheckedBox(nil)

    init() throws {
        harness = try LoopHarness()
        configuration = projectionConfiguration()
        let configuration = self.configuration
        let keeper = loopRealm
        try harness.run {
            let realm = try Realm(configuration: configuration)
            keeper.value = realm
            try seed(realm)
        }
    }

    func realm() throws -> Realm { try Realm(configuration: configuration) }

    /// Commits `body` from the loop thread's Realm.
    func write(_ body: @escaping (Realm) -> Void) throws {
        try harness.run {
            let realm = try realm()
            try realm.write { body(realm) }
        }
    }

    /// Commits `body` from a Realm on another thread (so `oldValue` is known).
    func writeFromOtherThread(_ body: @escaping @Sendable (Realm) -> Void) throws {
        let configuration = self.configuration
        let failure = UncheckedBox<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                let realm = try Realm(configuration: configuration)
                try realm.write { body(realm) }
            } catch {
                failure.value = error
            }
            done.signal()
        }
        thread.start()
        done.wait()
        if let error = failure.value { throw error }
    }
}

private func projectionConfiguration() -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "projection-\(UUID())",
                        objectTypes: [ProjPerson.self, ProjAddress.self])
}

/// Ada (1, in Paris, friends Grace and Alan, best friend Grace), Grace (2) and Alan (3).
private func seed(_ realm: Realm) throws {
    try realm.write {
        let ada = realm.create(ProjPerson.self, value: ["id": 1, "firstName": "Ada", "lastName": "Lovelace", "age": 36,
                                                        "address": ["city": "Paris", "country": "France"]])
        let grace = realm.create(ProjPerson.self, value: ["id": 2, "firstName": "Grace", "lastName": "Hopper",
                                                          "age": 85])
        let alan = realm.create(ProjPerson.self, value: ["id": 3, "firstName": "Alan", "lastName": "Turing", "age": 41])
        ada.friends.append(objectsIn: [grace, alan])
        ada.clubs.insert(grace)
        ada.bestFriend = grace
    }
}

private func person(_ realm: Realm, _ id: Int) -> ProjPerson {
    realm.object(ofType: ProjPerson.self, forPrimaryKey: id)!
}

private func seededRealm() throws -> Realm {
    let realm = try Realm(configuration: projectionConfiguration())
    try seed(realm)
    return realm
}

@Suite("Class projections")
struct ProjectionTests {
    // MARK: - Reading and writing

    @Test("projected properties read the root: pass-through, renamed, computed, through embedded objects and links")
    func reads() throws {
        let realm = try seededRealm()
        let ada = PersonProjection(projecting: person(realm, 1))
        #expect(ada.firstName == "Ada")
        #expect(ada.surname == "Lovelace")
        #expect(ada.lastNameCaps == "LOVELACE")
        #expect(ada.homeCity == "Paris")
        #expect(ada.homeCountry == "France")
        #expect(ada.bestFriendName == "Grace")
        #expect(ada.realm != nil && !ada.isInvalidated)
        #expect(ada.rootObject.isSameObject(as: person(realm, 1)))

        let grace = PersonProjection(projecting: person(realm, 2))
        #expect(grace.homeCity == nil && grace.bestFriendName == nil)
    }

    @Test("projected properties are live: they show the root object's committed changes")
    func liveReads() throws {
        let realm = try seededRealm()
        let ada = PersonProjection(projecting: person(realm, 1))
        try realm.write {
            person(realm, 1).firstName = "Augusta"
            person(realm, 1).address?.city = "London"
        }
        #expect(ada.firstName == "Augusta" && ada.homeCity == "London")
    }

    @Test("setting a projected property writes the root object, through renames and embedded objects")
    func writesThrough() throws {
        let realm = try seededRealm()
        let ada = PersonProjection(projecting: person(realm, 1))
        try realm.write {
            ada.firstName = "Augusta"
            ada.surname = "King"
            ada.homeCountry = "England"
        }
        let root = person(realm, 1)
        #expect(root.firstName == "Augusta" && root.lastName == "King" && root.address?.country == "England")
        #expect(ada.lastNameCaps == "KING")
    }

    @Test("writing a managed root through a projection outside a write transaction traps")
    func writeOutsideTransactionTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try seededRealm()
            PersonProjection(projecting: person(realm, 1)).firstName = "outside"
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("write transaction"), "\(stderr)")
    }

    @Test("setting a projected property whose key path is read-only traps with a message")
    func readOnlyKeyPathTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try seededRealm()
            let ada = PersonProjection(projecting: person(realm, 1))
            try realm.write { ada.lastNameCaps = "NOPE" }
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("read-only"), "\(stderr)")
    }

    @Test("an embedded object can be projected")
    func embeddedRoot() throws {
        let realm = try seededRealm()
        let address = AddressProjection(projecting: person(realm, 1).address!)
        #expect(address.town == "Paris")
        try realm.write { address.town = "Lyon" }
        #expect(person(realm, 1).address?.city == "Lyon")
    }

    // MARK: - Projected collections

    @Test("projectTo maps a list of objects to a live, read-only collection of one property")
    func projectedList() throws {
        let realm = try seededRealm()
        let ada = PersonProjection(projecting: person(realm, 1))
        let names = ada.friendsFirstNames
        #expect(names.count == 2)
        #expect(names[0] == "Grace" && names[1] == "Alan")
        #expect(Array(names) == ["Grace", "Alan"])
        #expect(names.index(of: "Alan") == 1 && names.index(of: "Ada") == nil)
        #expect(names.realm != nil && !names.isInvalidated)
        #expect(names.description == "ProjectedCollection<String> {\n\t[0] Grace\n\t[1] Alan\n}")

        try realm.write {
            person(realm, 1).friends.append(person(realm, 1))
            person(realm, 2).firstName = "Amazing Grace"
        }
        #expect(Array(names) == ["Amazing Grace", "Alan", "Ada"])
    }

    @Test("a projected collection freezes: the frozen copy keeps its values while the live one changes, and thaws")
    func projectedCollectionFreezes() throws {
        let realm = try seededRealm()
        let names = PersonProjection(projecting: person(realm, 1)).friendsFirstNames
        #expect(!names.isFrozen)
        let frozen = names.freeze()
        #expect(frozen.isFrozen && Array(frozen) == ["Grace", "Alan"])
        try realm.write { person(realm, 2).firstName = "Amazing Grace" }
        #expect(Array(frozen) == ["Grace", "Alan"])
        #expect(Array(names) == ["Amazing Grace", "Alan"])
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && Array(thawed) == ["Amazing Grace", "Alan"])
    }

    @Test("setting an element of a projected collection sets that object's property, in a write")
    func projectedCollectionWrites() throws {
        let realm = try seededRealm()
        let names = PersonProjection(projecting: person(realm, 1)).friendsFirstNames
        try realm.write { names[0] = "Overwritten" }
        #expect(person(realm, 2).firstName == "Overwritten")
        #expect(Array(names) == ["Overwritten", "Alan"])
    }

    @Test("projectTo works on a MutableSet of objects")
    func projectedSet() throws {
        let realm = try seededRealm()
        let ada = PersonProjection(projecting: person(realm, 1))
        #expect(Array(ada.clubAges) == [85])
        try realm.write { person(realm, 1).clubs.insert(person(realm, 3)) }
        #expect(ada.clubAges.sorted() == [41, 85])
    }

    // MARK: - Results of projections

    @Test("realm.objects(P.self) is a live Results of projections: count, first, iteration")
    func resultsOfProjections() throws {
        let realm = try seededRealm()
        let people: Results<PersonProjection> = realm.objects(PersonProjection.self)
        #expect(people.count == 3)
        #expect(people.first!.firstName == "Ada")
        var names: [String] = []
        for projection in realm.objects(PersonProjection.self) { names.append(projection.firstName) }
        #expect(names == ["Ada", "Grace", "Alan"])
        #expect(people.map(\.surname) == ["Lovelace", "Hopper", "Turing"])
        // Realm's format; a projection through a nil link (`\.address!.country`) prints nil.
        #expect(people.description.hasPrefix("Results<PersonProjection> <0x"))
        #expect(people.description.contains("\t[1] PersonProjection<ProjPerson> <0x"))
        #expect(people.description.contains("\t\thomeCountry(\\.address.country) = nil;"))

        try realm.write { realm.add(ProjPerson(value: ["id": 4, "firstName": "Edsger"])) }
        #expect(people.count == 4 && people[3].firstName == "Edsger")
    }

    @Test("Results of projections filter, query and sort by the root's properties")
    func queryingProjections() throws {
        let realm = try seededRealm()
        let projections = realm.objects(PersonProjection.self)
        #expect(projections.filter("age > $0", 40).map(\.firstName) == ["Grace", "Alan"])
        #expect(projections.filter("address.city == 'Paris'").map(\.firstName) == ["Ada"])
        #expect(projections.where { $0.age < 40 }.map(\.firstName) == ["Ada"])
        #expect(projections.where { $0.friends.firstName == "Alan" }.count == 1)
        #expect(projections.sorted(byKeyPath: "age", ascending: false).map(\.firstName) == ["Grace", "Alan", "Ada"])
        #expect(projections.sorted(by: \.lastName).map(\.surname) == ["Hopper", "Lovelace", "Turing"])
        let found = projections.first { $0.firstName == "Grace" }
        #expect(found?.surname == "Hopper")
    }

    @Test("projections of one object are equal and hash alike, whatever accessor they project")
    func equality() throws {
        let realm = try seededRealm()
        let first = PersonProjection(projecting: person(realm, 1))
        let second = realm.objects(PersonProjection.self)[0]
        let other = PersonProjection(projecting: person(realm, 2))
        #expect(first == second && first.hashValue == second.hashValue)
        #expect(first != other)
        #expect(realm.objects(PersonProjection.self).index(of: other) == 1)
        #expect(Set([first, second, other]).count == 2)

        let unmanaged = ProjPerson()
        #expect(PersonProjection(projecting: unmanaged) == PersonProjection(projecting: unmanaged))
        #expect(PersonProjection(projecting: unmanaged) != PersonProjection(projecting: ProjPerson()))
    }

    @Test("a projection describes itself as Realm does: class, root type, then each property with its key path")
    func description() throws {
        let realm = try seededRealm()
        let text = NameProjection(projecting: person(realm, 1)).description
        #expect(text.hasPrefix("NameProjection<ProjPerson> <0x"))
        #expect(text.hasSuffix("> {\n\tname(\\.firstName) = Ada;\n}"))
        let full = PersonProjection(projecting: person(realm, 1)).description
        #expect(full.contains("\thomeCity(\\.address.city) = Paris;"))
        #expect(full.contains("\tfriendsFirstNames(\\.friends.firstName) = ProjectedCollection<String>"))
    }

    // MARK: - Unmanaged roots

    @Test("an unmanaged object can be projected: reads and writes need no Realm")
    func unmanagedRoot() {
        let root = ProjPerson(value: ["id": 9, "firstName": "Ada", "lastName": "Byron",
                                     "address": ["city": "London", "country": "England"]])
        root.friends.append(ProjPerson(value: ["firstName": "Mary"]))
        let projection = PersonProjection(projecting: root)
        #expect(projection.realm == nil && !projection.isInvalidated)
        #expect(projection.firstName == "Ada" && projection.lastNameCaps == "BYRON" && projection.homeCity == "London")
        #expect(Array(projection.friendsFirstNames) == ["Mary"])
        projection.firstName = "Augusta"
        projection.homeCountry = "UK"
        #expect(root.firstName == "Augusta" && root.address?.country == "UK")
    }

    @Test("observing a projection of an unmanaged object traps, as Realm's object observers do")
    func unmanagedObserveTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let projection = PersonProjection(projecting: ProjPerson())
            _ = projection.observe { _ in }
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("managed by a Realm"), "\(stderr)")
    }

    // MARK: - Observation

    @Test("a projection observer fires only for projected properties and names them as the projection does")
    func observesProjectedProperties() throws {
        let fixture = try ProjectionFixture()
        let harness = fixture.harness
        let tokens = try harness.run {
            let root = person(try fixture.realm(), 1)
            let projection = PersonProjection(projecting: root)
            return [
                NameProjection(projecting: root).observe { harness.record("name " + describe($0)) },
                projection.observe { change in
                    guard case .change(let observed, let properties) = change else {
                        return harness.record("all " + describe(change))
                    }
                    // The block receives the projection itself.
                    precondition(observed === projection)
                    harness.record("all " + properties.map(\.name).joined(separator: ","))
                },
            ]
        }
        // Not projected by either: nobody is called.
        try fixture.write { person($0, 1).age = 37 }
        #expect(harness.settledEvents().isEmpty)

        try fixture.write { person($0, 1).firstName = "Augusta" }
        #expect(Set(harness.waitForEvents(2)) == ["name name:nil->Augusta", "all firstName"])

        // Every projected property read through `address` is reported (as in Realm).
        try fixture.write { person($0, 1).address?.city = "London" }
        #expect(harness.waitForEvents(3).last == "all homeCity,homeCountry")

        // `lastName` feeds two projected properties.
        try fixture.write { person($0, 1).lastName = "King" }
        #expect(harness.waitForEvents(4).last == "all surname,lastNameCaps")

        // A friend's first name, through projectTo; a friend's age is not projected.
        try fixture.write { person($0, 3).age = 42 }
        try fixture.write { person($0, 3).firstName = "Alan M." }
        #expect(harness.waitForEvents(5).last == "all friendsFirstNames")
        #expect(harness.settledEvents().count == 5)

        try fixture.write { $0.delete(person($0, 1)) }
        #expect(Set(harness.waitForEvents(7).suffix(2)) == ["name deleted", "all deleted"])
        harness.run { for token in tokens { token.invalidate() } }
    }

    @Test("key paths select projected properties by projection name, root key path or Swift key path")
    func observesSelectedKeyPaths() throws {
        let fixture = try ProjectionFixture()
        let harness = fixture.harness
        let tokens = try harness.run {
            let projection = PersonProjection(projecting: person(try fixture.realm(), 1))
            return [
                projection.observe(keyPaths: ["homeCity"]) { harness.record("byName " + describe($0)) },
                projection.observe(keyPaths: ["address.city"]) { harness.record("byPath " + describe($0)) },
                projection.observe(keyPaths: [\PersonProjection.homeCity]) {
                    harness.record("bySwift " + describe($0))
                },
                projection.observe(keyPaths: [\.surname]) { harness.record("surname " + describe($0)) },
            ]
        }
        // The country is not selected: nothing (homeCountry is projected, but not observed here).
        try fixture.write { person($0, 1).address?.country = "UK" }
        #expect(harness.settledEvents().isEmpty)

        try fixture.write { person($0, 1).address?.city = "London" }
        #expect(Set(harness.waitForEvents(3)) == ["byName homeCity:nil->London", "byPath homeCity:nil->London",
                                                  "bySwift homeCity:nil->London"])
        try fixture.write { person($0, 1).lastName = "King" }
        #expect(harness.waitForEvents(4).last == "surname surname:nil->King")
        #expect(harness.settledEvents().count == 4)
        harness.run { for token in tokens { token.invalidate() } }
    }

    @Test("a projection's PropertyChange carries projected old values for commits from another thread")
    func observedOldValues() throws {
        let fixture = try ProjectionFixture()
        let harness = fixture.harness
        let token = try harness.run {
            let realm = try fixture.realm()
            let projection = PersonProjection(projecting: person(realm, 1))
            let token = projection.observe(keyPaths: ["surname", "lastNameCaps"]) { harness.record(describe($0)) }
            // An object notifier takes its starting state when it is first prepared, by the notifier
            // worker (asynchronously) or by this Realm's next refresh. Prepare it now, so that the
            // other thread's commit below comes after that state rather than racing the worker.
            realm.refresh()
            return token
        }
        try fixture.writeFromOtherThread { person($0, 1).lastName = "King" }
        #expect(harness.waitForEvents(1) == ["surname:Lovelace->King,lastNameCaps:LOVELACE->KING"])
        harness.run { token.invalidate() }
    }

    @Test("observing an unknown projected key path traps")
    func unknownKeyPathTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try seededRealm()
            _ = PersonProjection(projecting: person(realm, 1)).observe(keyPaths: ["age"]) { _ in }
            exit(0)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("'age' is not a projected property of 'PersonProjection'"), "\(stderr)")
    }

    @Test("Results of projections and projected collections deliver collection changes")
    func collectionObservation() throws {
        let fixture = try ProjectionFixture()
        let harness = fixture.harness
        let tokens = try harness.run {
            let realm = try fixture.realm()
            let friendsNames = PersonProjection(projecting: person(realm, 1)).friendsFirstNames
            return [
                realm.objects(PersonProjection.self).observe(keyPaths: ["firstName"]) { change in
                    if case .initial(let results) = change {
                        harness.record("results initial \(results.map(\.firstName))")
                    } else {
                        harness.record("results " + describe(change))
                    }
                },
                friendsNames.observe(keyPaths: ["firstName"]) { change in
                    if case .update(let names, _, _, _) = change {
                        harness.record("names \(describe(change)) \(Array(names))")
                    } else {
                        harness.record("names " + describe(change))
                    }
                },
            ]
        }
        #expect(Set(harness.waitForEvents(2)) == ["results initial [\"Ada\", \"Grace\", \"Alan\"]", "names initial"])
        try fixture.write { person($0, 2).firstName = "Amazing Grace" }
        #expect(Set(harness.waitForEvents(4).suffix(2)) == ["results d[] i[] m[1]",
                                                            "names d[] i[] m[0] [\"Amazing Grace\", \"Alan\"]"])
        harness.run { for token in tokens { token.invalidate() } }
    }
}
