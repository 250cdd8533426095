import Foundation
import Strata
import Testing

@Suite("ObjectSchema lists persisted properties apart from computed ones, as Realm does")
struct ObjectSchemaPropertiesTests {
    @Test("LinkingObjects are in computedProperties, not in properties, and the subscript finds both")
    func linkingObjectsAreComputed() throws {
        let schema = SeqDog().objectSchema
        #expect(schema.properties.map(\.name) == ["name", "age"])
        #expect(schema.computedProperties.map(\.name) == ["owners"])
        #expect(schema["owners"]?.type == .linkingObjects && schema["owners"]?.linkOriginPropertyName == "dogs")
        #expect(schema.description == """
            SeqDog {
            \tname {
            \t\ttype = string;
            \t\tcolumnName = name;
            \t\tindexed = NO;
            \t\tisPrimary = NO;
            \t\tarray = NO;
            \t\tset = NO;
            \t\tdictionary = NO;
            \t\toptional = NO;
            \t}
            \tage {
            \t\ttype = int;
            \t\tcolumnName = age;
            \t\tindexed = NO;
            \t\tisPrimary = NO;
            \t\tarray = NO;
            \t\tset = NO;
            \t\tdictionary = NO;
            \t\toptional = NO;
            \t}
            \towners {
            \t\ttype = linking objects;
            \t\tobjectClassName = SeqOwner;
            \t\tlinkOriginPropertyName = dogs;
            \t\tcolumnName = owners;
            \t\tindexed = NO;
            \t\tisPrimary = NO;
            \t\tarray = NO;
            \t\tset = NO;
            \t\tdictionary = NO;
            \t\toptional = NO;
            \t}
            }
            """, "Realm's format: each property's description, indented")
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "schema-props-\(UUID())",
                                                                 objectTypes: [SeqOwner.self, SeqDog.self]))
        #expect(realm.schema["SeqDog"] == schema)
    }

    @Test("the array form of Object(value:) and create(_:value:) counts persisted properties only, in order")
    func arrayFormCountsPersistedProperties() throws {
        let dog = SeqDog(value: ["Rex", 3])
        #expect(dog.name == "Rex" && dog.age == 3)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "schema-array-\(UUID())",
                                                                 objectTypes: [SeqOwner.self, SeqDog.self]))
        try realm.write { realm.create(SeqDog.self, value: ["Fido", 5]) }
        #expect(realm.objects(SeqDog.self).first?.age == 5)
        do {
            try realm.write { realm.create(SeqDog.self, value: ["Tom", 1, 2]) }
            Issue.record("three values for two persisted properties did not fail")
        } catch let error as Realm.Error {
            #expect(error.message == "Invalid array input: more values (3) than properties (2).")
        }
    }

    @Test("a migration's old and new schemas agree on a class with LinkingObjects")
    func migrationSchemasAgree() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.open(file.configuration([SeqOwner.self, SeqDog.self]))
        let log = MigrationLog()
        try file.open(file.configuration([SeqOwner.self, SeqDog.self], version: 1) { migration, _ in
            let old = migration.oldSchema["SeqDog"], new = migration.newSchema["SeqDog"]
            log.record("\(old?.properties == new?.properties) \(new?.computedProperties.map(\.name) ?? [])")
        })
        #expect(log.all == ["true [\"owners\"]"])
    }
}
