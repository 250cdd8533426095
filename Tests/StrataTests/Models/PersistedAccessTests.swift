import Foundation
@testable import Strata
import StrataTestSupport
import Testing

final class AccessOwner: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var token: UUID
    @Persisted var created: Date
    @Persisted var count = 3
    @Persisted var name: String
    @Persisted var pet: AccessPet?
}

final class AccessPet: Object {
    @Persisted var name: String
    @Persisted var owner: AccessOwner?
}

/// The paths of `@Persisted`'s accessor other than a managed read: unmanaged values with and
/// without a default, sets before and after `add`, and key-path tracing (the slow path gets the
/// storage's address rather than its key path).
@Suite("@Persisted accessor paths")
struct PersistedAccessTests {
    /// A new in-memory Realm of the two models.
    private static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "persisted-access-\(UUID())",
                                                     objectTypes: [AccessOwner.self, AccessPet.self]))
    }

    @Test("a property without a default keeps the default its first read made (ObjectId, UUID, Date)")
    func lazyDefaultsAreKept() {
        let owner = AccessOwner()
        let id = owner.id, token = owner.token, created = owner.created
        #expect(owner.id == id && owner.token == token && owner.created == created)
        #expect(owner.count == 3 && owner.name == "" && owner.pet == nil)
        #expect(AccessOwner().id != id, "each instance has its own default")
    }

    @Test("unmanaged sets are read back and added; managed reads and sets go to the Realm")
    func unmanagedThenManaged() throws {
        let realm = try Self.realm()
        let owner = AccessOwner()
        owner.name = "ann"
        owner.count += 4
        owner.pet = AccessPet(value: ["name": "rex"])
        #expect(owner.name == "ann" && owner.count == 7 && owner.pet?.name == "rex")
        let id = owner.id
        try realm.write { realm.add(owner) }
        let found = try #require(realm.object(ofType: AccessOwner.self, forPrimaryKey: id))
        #expect(found.name == "ann" && found.count == 7 && found.pet?.name == "rex" && found.id == id)
        try realm.write {
            found.count += 1
            found.pet?.owner = found
        }
        #expect(owner.count == 8 && found.pet?.owner?.name == "ann")
    }

    @Test("primary-key lookups of classes in turn, inside a write, after it is cancelled and after the next one, find what the Realm holds")
    func lookupsAcrossWrites() throws {
        // `NoteDog` is not in the schema: the write that adds one makes its table, and the
        // cancelled write forgets it again (the Realm's table cache, and the entry its last lookup
        // kept, must follow).
        let realm = try Self.realm()
        let owner = AccessOwner()
        try realm.write { realm.add(owner) }
        realm.beginWrite()
        realm.add(NoteDog(value: ["id": 7, "name": "Rex", "age": 3]))
        #expect(realm.object(ofType: AccessOwner.self, forPrimaryKey: owner.id) != nil)
        #expect(realm.object(ofType: NoteDog.self, forPrimaryKey: 7)?.name == "Rex")
        realm.cancelWrite()
        #expect(realm.object(ofType: NoteDog.self, forPrimaryKey: 7) == nil)
        // The next write makes the tables again, another class's first: a lookup must not reach
        // it through the table the cancelled write had made.
        try realm.write { realm.add(NotePerson(value: ["id": 7, "name": "Ann"])) }
        #expect(realm.object(ofType: NoteDog.self, forPrimaryKey: 7) == nil)
        #expect(realm.object(ofType: NotePerson.self, forPrimaryKey: 7)?.name == "Ann")
        #expect(realm.object(ofType: AccessOwner.self, forPrimaryKey: owner.id)?.count == 3)
        try realm.write { realm.add(NoteDog(value: ["id": 8, "name": "Fido", "age": 2])) }
        #expect(realm.object(ofType: NoteDog.self, forPrimaryKey: 8)?.name == "Fido")
        #expect(realm.object(ofType: NoteDog.self, forPrimaryKey: 7) == nil)
        #expect(realm.objects(NoteDog.self).count == 1)
    }

    @Test("reads between sets see every set; a refused set leaves the object readable")
    func readsBetweenSets() throws {
        let realm = try Self.realm()
        let owner = AccessOwner()
        try realm.write { realm.add(owner) }
        try realm.write {
            for expected in 4..<104 {
                owner.count += 1
                #expect(owner.count == expected)
                owner["name"] = "n\(expected)"
                #expect(owner.name == "n\(expected)" && owner.count == expected)
            }
        }
        #expect(owner.count == 103 && owner.name == "n103")
        // Changing the primary key is refused (the write throws); the object still reads.
        let error = #expect(throws: Realm.Error.self) { try realm.write { owner.id = ObjectId.generate() } }
        #expect(error != nil)
        #expect(owner.count == 103 && owner.name == "n103")
    }

    @Test("key paths name their properties, through links too")
    func keyPathTracing() {
        #expect(KeyPathTracer.dottedName(of: \AccessOwner.count) == "count")
        #expect(KeyPathTracer.dottedName(of: \AccessOwner.id) == "id")
        #expect(KeyPathTracer.dottedName(of: \AccessOwner.pet?.name) == "pet.name")
        #expect(KeyPathTracer.dottedName(of: \AccessPet.owner?.pet?.owner?.created) == "owner.pet.owner.created")
    }
}

@Suite("_name(for:)")
struct KeyPathNameTests {
    @Test("a key path's property names, joined with dots, collection subscripts and optionals dropped, as Realm Swift's")
    func names() {
        #expect(_name(for: \InputPerson.name) == "name")
        #expect(_name(for: \InputPerson.address?.city) == "address.city")
        #expect(_name(for: \InputPerson.pets[0].age) == "pets.age")
    }

    @Test("through a MutableSet, a Map and LinkingObjects subscript too")
    func namesThroughEveryCollection() {
        #expect(_name(for: \InputPet.owners[0].name) == "owners.name")
        #expect(_name(for: \KeyPathNode.set[0].name) == "set.name")
        #expect(_name(for: \KeyPathNode.map["a"]??.name) == "map.name")
        #expect(_name(for: \KeyPathNode.map["a"]??.previous[0].set[0].name) == "map.previous.set.name")
    }
}

final class KeyPathNode: Object {
    @Persisted var name = ""
    @Persisted var next: KeyPathNode?
    @Persisted var set: MutableSet<KeyPathNode>
    @Persisted var map: Map<String, KeyPathNode?>
    @Persisted(originProperty: "next") var previous: LinkingObjects<KeyPathNode>
}
