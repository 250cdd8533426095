import Foundation
@testable import Strata
import StrataTestSupport
import Testing

final class MappedOwner: Object {
    @Persisted(primaryKey: true) var ownerId: Int
    @Persisted var firstName: String
    @Persisted var age: Int
    @Persisted var pets: List<MappedPet>
    @Persisted var nicknames: List<String>
    @Persisted(originProperty: "keeper") var kept: LinkingObjects<MappedPet>

    override class func propertiesMapping() -> [String: String] {
        ["ownerId": "owner_id", "firstName": "first_name", "age": "age_years", "pets": "pet_list"]
    }
}

final class MappedPet: Object {
    @Persisted var petName: String
    @Persisted var keeper: MappedOwner?

    override class func propertiesMapping() -> [String: String] { ["petName": "pet_name", "keeper": "keeper_link"] }
}

final class MappedTypo: Object {
    @Persisted var name: String
    override class func propertiesMapping() -> [String: String] { ["nmae": "n"] }
}

final class MappedTwice: Object {
    @Persisted var first: String
    @Persisted var second: String
    override class func propertiesMapping() -> [String: String] { ["first": "second"] }
}

/// Realm Swift's custom column names (`propertiesMapping()`): the file stores mapped columns,
/// the code keeps using property names everywhere.
@Suite("Custom column names")
struct CustomColumnNameTests {
    private static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mapped-\(UUID())",
                                                     objectTypes: [MappedOwner.self, MappedPet.self]))
    }

    /// Two owners, Ada (36) with pets Rex and Fido, Bob (41) with Tom; Fido is kept by Bob.
    private static func filled() throws -> Realm {
        let realm = try realm()
        try realm.write {
            let ada = realm.create(MappedOwner.self, value: ["ownerId": 1, "firstName": "Ada", "age": 36,
                                                            "nicknames": ["A"]])
            let bob = realm.create(MappedOwner.self, value: ["ownerId": 2, "firstName": "Bob", "age": 41])
            ada.pets.append(objectsIn: [MappedPet(value: ["petName": "Rex", "keeper": ada]),
                                        MappedPet(value: ["petName": "Fido", "keeper": bob])])
            bob.pets.append(MappedPet(value: ["petName": "Tom", "keeper": bob]))
        }
        return realm
    }

    @Test("the schema names each property's column; the file stores the mapped names")
    func schemaAndFile() throws {
        let realm = try Self.realm()
        let schema = try #require(realm.schema["MappedOwner"])
        #expect(schema.properties.map(\.columnName) == ["owner_id", "first_name", "age_years", "pet_list", "nicknames"])
        #expect(schema.properties.map(\.name) == ["ownerId", "firstName", "age", "pets", "nicknames"])
        #expect(schema["firstName"]?.description.contains("\tcolumnName = first_name;\n") == true)
        #expect(schema["nicknames"]?.description.contains("\tcolumnName = nicknames;\n") == true)
        let stored = try #require(realm.readSnapshot.table(named: "MappedOwner")?.schema)
        #expect(stored.columns.map(\.name) == ["owner_id", "first_name", "age_years", "pet_list", "nicknames"])
        #expect(stored.primaryKey == "owner_id")
        #expect(realm.readSnapshot.table(named: "MappedPet")?.schema.columns.map(\.name) == ["pet_name", "keeper_link"])
    }

    @Test("objects are created, read, written and found by primary key through property names")
    func readAndWrite() throws {
        let realm = try Self.filled()
        let ada = try #require(realm.object(ofType: MappedOwner.self, forPrimaryKey: 1))
        #expect(ada.firstName == "Ada" && ada.age == 36 && ada.pets.map(\.petName) == ["Rex", "Fido"])
        #expect(ada.value(forKey: "firstName") as? String == "Ada")
        try realm.write {
            ada.age += 1
            ada.setValue("Ada L.", forKey: "firstName")
            realm.create(MappedOwner.self, value: ["ownerId": 1, "age": 50], update: .modified)
        }
        #expect(ada.age == 50 && ada.firstName == "Ada L.")
        #expect(ada.kept.map(\.petName) == ["Rex"])
    }

    @Test("string and typed queries, sort, distinct, links, @links, SUBQUERY, IN and BETWEEN use property names")
    func queries() throws {
        let realm = try Self.filled()
        let owners = realm.objects(MappedOwner.self)
        #expect(owners.filter("firstName == 'Ada'").count == 1)
        #expect(owners.where { $0.age > 40 }.map(\.firstName) == ["Bob"])
        #expect(owners.filter("age BETWEEN {30, 40} AND ownerId IN {1, 2}").map(\.ownerId) == [1])
        #expect(owners.sorted(byKeyPath: "age", ascending: false).map(\.firstName) == ["Bob", "Ada"])
        #expect(owners.filter("TRUEPREDICATE SORT(firstName DESC)").map(\.firstName) == ["Bob", "Ada"])
        #expect(owners.filter("ANY pets.petName == 'Tom'").map(\.firstName) == ["Bob"])
        #expect(owners.where { $0.pets.petName == "Rex" }.map(\.firstName) == ["Ada"])
        #expect(owners.filter("SUBQUERY(pets, $pet, $pet.petName BEGINSWITH 'F' AND $pet.keeper.firstName == 'Bob').@count == 1")
                .map(\.firstName) == ["Ada"])
        #expect(owners.filter("ANY @links.MappedPet.keeper.petName == 'Rex'").map(\.firstName) == ["Ada"])
        let pets = realm.objects(MappedPet.self)
        #expect(pets.filter("keeper.firstName == 'Bob'").sorted(byKeyPath: "petName").map(\.petName) == ["Fido", "Tom"])
        #expect(pets.distinct(by: ["keeper.ownerId"]).count == 2)
        #expect(pets.sorted(by: [SortDescriptor(keyPath: "keeper.age"), SortDescriptor(keyPath: "petName")])
                .map(\.petName) == ["Rex", "Fido", "Tom"])
        #expect(owners.sum(ofProperty: "age") as Int == 77)
        #expect(owners.index(matching: "firstName == 'Bob'") == 1)
        #expect(owners.first!.pets.filter("petName == 'Fido'").count == 1)
        #expect(owners.first!.nicknames.filter("self == 'A'").count == 1)
        let sections = pets.sectioned(by: \.petName, ascending: true)
        #expect(sections.allKeys == ["Fido", "Rex", "Tom"])
    }

    @Test("observation key paths use property names")
    func observation() throws {
        let realm = try Self.filled()
        let queue = DispatchQueue(label: "mapped-observer")
        let log = DeliveryLog()
        let token = realm.objects(MappedOwner.self).sorted(byKeyPath: "firstName")
            .observe(keyPaths: ["age"], on: queue) { change in
                switch change {
                case .initial: log.record("initial")
                case .update(_, _, _, let modifications): log.record("modified \(modifications)")
                case .error(let error): log.record("error \(error)")
                }
            }
        defer { token.invalidate() }
        #expect(log.next())
        let bob = try #require(realm.object(ofType: MappedOwner.self, forPrimaryKey: 2))
        try realm.write { bob.firstName = "Robert" }   // not an observed key path
        try realm.write { bob.age = 42 }
        #expect(log.next())
        queue.sync {}
        #expect(log.all == ["initial", "modified [1]"])
    }

    @Test("a mapping naming no persisted property, or two properties stored under one name, is an invalid schema")
    func invalidMappings() {
        let typo = #expect(throws: Realm.Error.self) { _ = try ClassInfo.of(MappedTypo.self) }
        #expect(typo?.code == .invalidSchema)
        #expect(typo?.message.contains("'nmae'") == true)
        let twice = #expect(throws: Realm.Error.self) { _ = try ClassInfo.of(MappedTwice.self) }
        #expect(twice?.code == .invalidSchema)
        #expect(twice?.message.contains("'second'") == true)
    }
}
