import Foundation
@testable import Strata
import Testing

enum QTKind: String, PersistableEnum { case cat, dog, bird }

final class QTOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var city: String?
}

final class QTLocation: EmbeddedObject {
    @Persisted var type = "Point"
    @Persisted var coordinates: List<Double>
}

final class QTPet: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var nickname: String?
    @Persisted var age: Int
    @Persisted var weight: Double
    @Persisted var born: Date
    @Persisted var kind: QTKind
    @Persisted var owner: QTOwner?
    @Persisted var tags: List<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var extra: AnyRealmValue
    @Persisted var friends: List<QTPet>
    @Persisted var location: QTLocation?
}

/// Each row: a `where {}` query, the same query in the Realm Query Language, and the ids it
/// must return (ascending). Both spellings run against the same data.
struct QueryRow: CustomTestStringConvertible, Sendable {
    let typed: @Sendable (Query<QTPet>) -> Query<Bool>
    let rql: String
    let arguments: [any Sendable]
    let expected: [Int]

    var testDescription: String { rql }

    init(_ rql: String, _ arguments: [any Sendable] = [], _ expected: [Int], _ typed: @escaping @Sendable (Query<QTPet>) -> Query<Bool>) {
        self.rql = rql
        self.arguments = arguments
        self.expected = expected
        self.typed = typed
    }
}

let base = Date(timeIntervalSince1970: 1_700_000_000)

let queryRows: [QueryRow] = [
    QueryRow("age > 3", [], [4, 5, 6]) { $0.age > 3 },
    QueryRow("age >= 3 AND age < 5", [], [3, 4]) { $0.age >= 3 && $0.age < 5 },
    QueryRow("age == 1 OR age == 6", [], [1, 6]) { $0.age == 1 || $0.age == 6 },
    QueryRow("NOT (age > 2)", [], [1, 2]) { !($0.age > 2) },
    QueryRow("age != 2", [], [1, 3, 4, 5, 6]) { $0.age != 2 },
    QueryRow("weight < $0", [5.0], [1, 2]) { $0.weight < 5.0 },
    QueryRow("name == 'Rex'", [], [1]) { $0.name == "Rex" },
    QueryRow("name ==[c] 'rex'", [], [1]) { $0.name.equals("rex", options: .caseInsensitive) },
    QueryRow("name BEGINSWITH 'R'", [], [1, 4]) { $0.name.starts(with: "R") },
    QueryRow("name BEGINSWITH[c] $0", ["r"], [1, 4]) { $0.name.starts(with: "r", options: .caseInsensitive) },
    QueryRow("name ENDSWITH 'y'", [], [2, 3, 5]) { $0.name.ends(with: "y") },
    QueryRow("name CONTAINS 'll'", [], [3]) { $0.name.contains("ll") },
    QueryRow("name CONTAINS[d] 'e'", [], [1, 4, 6]) { $0.name.contains("e", options: .diacriticInsensitive) },
    QueryRow("name LIKE 'R*'", [], [1, 4]) { $0.name.like("R*") },
    QueryRow("name LIKE '?ex'", [], [1]) { $0.name.like("?ex") },
    QueryRow("name LIKE[c] 'r*'", [], [1, 4]) { $0.name.like("r*", caseInsensitive: true) },
    QueryRow("nickname == nil", [], [2, 4, 6]) { $0.nickname == nil },
    QueryRow("nickname != nil", [], [1, 3, 5]) { $0.nickname != nil },
    QueryRow("age IN {1, 3, 5}", [], [1, 3, 5]) { $0.age.in([1, 3, 5]) },
    QueryRow("name IN $0", [["Rex", "Molly"]], [1, 3]) { $0.name.in(["Rex", "Molly"]) },
    QueryRow("age BETWEEN {2, 4}", [], [2, 3, 4]) { $0.age.contains(2...4) },
    QueryRow("born > $0", [base.addingTimeInterval(3)], [4, 5, 6]) { $0.born > base.addingTimeInterval(3) },
    QueryRow("kind == 'dog'", [], [1, 4]) { $0.kind == .dog },
    QueryRow("owner.name == 'Ada'", [], [1, 2, 3]) { $0.owner.name == "Ada" },
    QueryRow("owner.city == nil", [], [4, 5, 6]) { $0.owner.city == nil },
    QueryRow("owner == nil", [], [6]) { $0.owner == nil },
    QueryRow("ANY tags == 'good'", [], [1, 2]) { $0.tags.contains("good") },
    QueryRow("tags.@count == 0", [], [5, 6]) { $0.tags.count == 0 },
    QueryRow("tags.@count >= 2", [], [1]) { $0.tags.count >= 2 },
    QueryRow("ANY tags IN {'fast', 'loud'}", [], [1, 3, 4]) { $0.tags.containsAny(in: ["fast", "loud"]) },
    QueryRow("scores['speed'] > 5", [], [1, 3]) { $0.scores["speed"] > 5 },
    QueryRow("scores.@count == 2", [], [1]) { $0.scores.count == 2 },
    QueryRow("ANY scores.@keys == 'grace'", [], [1, 2]) { $0.scores.keys == "grace" },
    QueryRow("ANY scores.@values > 9", [], [3]) { $0.scores.values > 9 },
    QueryRow("ANY scores.@allKeys == 'grace'", [], [1, 2]) { $0.scores.keys == "grace" },
    QueryRow("ANY scores.@allValues > 9", [], [3]) { $0.scores.values > 9 },
    QueryRow("extra == 5", [], [1]) { $0.extra == .int(5) },
    QueryRow("extra == 'five'", [], [2]) { $0.extra == .string("five") },
    QueryRow("ANY friends.age > 4", [], [1, 2]) { $0.friends.age > 4 },
    QueryRow("friends.@count > 1", [], [1]) { $0.friends.count > 1 },
    QueryRow("SUBQUERY(friends, $x, $x.age > 2).@count >= 2", [], [1]) { ($0.friends.age > 2).count >= 2 },
    QueryRow("friends.@avg.age > 4", [], [1, 2]) { $0.friends.age.avg > 4 },
    QueryRow("friends.@max.age == 6", [], [1, 2]) { $0.friends.age.max == 6 },
    QueryRow("TRUEPREDICATE", [], [1, 2, 3, 4, 5, 6]) { _ in Query<Bool>(.predicate(.constant(true))) },
    QueryRow("FALSEPREDICATE", [], []) { _ in Query<Bool>(.predicate(.constant(false))) },
    QueryRow("ALL tags == 'good'", [], [2, 5, 6]) { _ in
        Query<Bool>(.predicate(.not(.comparison(.path(QueryPath(components: [.property("tags")], collectionEnd: 1)),
                                                .notEqual, .string("good"), []))))
    },
    QueryRow("NONE tags == 'fast'", [], [2, 3, 5, 6]) { !$0.tags.contains("fast") },
    QueryRow("extra.@type == 'string'", [], [2]) { _ in
        Query<Bool>(.predicate(.comparison(.path(QueryPath(components: [.property("extra"), .type])), .equal, .string("string"), [])))
    },
    QueryRow("owner.@links.QTPet.owner.@count > 2", [], [1, 2, 3]) { _ in
        Query<Bool>(.predicate(.comparison(.path(QueryPath(components: [
            .property("owner"), .backlinks(table: "QTPet", property: "owner"), .count,
        ])), .greater, .int(2), [])))
    },
    QueryRow("name.@size == 3", [], [1, 6]) { _ in
        Query<Bool>(.predicate(.comparison(.path(QueryPath(components: [.property("name"), .count])), .equal, .int(3), [])))
    },
    QueryRow("location GEOWITHIN $0", [GeoPolygon(outerRing: [GeoPoint(latitude: -1, longitude: -1)!, GeoPoint(latitude: -1, longitude: 20)!,
                                                              GeoPoint(latitude: 20, longitude: 20)!, GeoPoint(latitude: -1, longitude: -1)!])!], [1, 2]) {
        $0.location.geoWithin(GeoPolygon(outerRing: [GeoPoint(latitude: -1, longitude: -1)!, GeoPoint(latitude: -1, longitude: 20)!,
                                                     GeoPoint(latitude: 20, longitude: 20)!, GeoPoint(latitude: -1, longitude: -1)!])!)
    },
    QueryRow("location GEOWITHIN $0", [GeoBox(bottomLeft: (0, 0), topRight: (10, 10))!], [1, 2]) {
        $0.location.geoWithin(GeoBox(bottomLeft: (0, 0), topRight: (10, 10))!)
    },
    QueryRow("location GEOWITHIN $0", [GeoCircle(center: GeoPoint(latitude: 50, longitude: 50)!, radius: .kilometers(500)!)], [3]) {
        $0.location.geoWithin(GeoCircle(center: GeoPoint(latitude: 50, longitude: 50)!, radius: .kilometers(500)!))
    },
]

@Suite("Query table: where {} and RQL agree")
struct QueryTableTests {
    static func makeRealm() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: "query-table-\(UUID())", objectTypes: [QTPet.self, QTOwner.self, QTLocation.self]))
        try realm.write {
            let ada = realm.create(QTOwner.self, value: ["id": 1, "name": "Ada", "city": "Paris"])
            let bob = realm.create(QTOwner.self, value: ["id": 2, "name": "Bob"])
            let rows: [(Int, String, String?, Int, Double, QTKind, QTOwner?, [String], [String: Int], AnyRealmValue)] = [
                (1, "Rex", "R", 1, 3.5, .dog, ada, ["good", "fast"], ["speed": 9, "grace": 2], .int(5)),
                (2, "Daisy", nil, 2, 4.5, .cat, ada, ["good"], ["grace": 4], .string("five")),
                (3, "Molly", "M", 3, 5.5, .bird, ada, ["loud"], ["speed": 10], .double(5.5)),
                (4, "Rover", nil, 4, 6.5, .dog, bob, ["fast"], [:], .none),
                (5, "Sunny", "S", 5, 7.5, .cat, bob, [], [:], .bool(true)),
                (6, "Zoë", nil, 6, 8.5, .bird, nil, [], [:], .none),
            ]
            var pets: [QTPet] = []
            for row in rows {
                let pet = QTPet()
                pet.id = row.0
                pet.name = row.1
                pet.nickname = row.2
                pet.age = row.3
                pet.weight = row.4
                pet.born = base.addingTimeInterval(Double(row.0))
                pet.kind = row.5
                pet.owner = row.6
                pet.tags.append(objectsIn: row.7)
                for (key, value) in row.8 { pet.scores[key] = value }
                pet.extra = row.9
                let location = QTLocation()
                let coordinates: (Double, Double) = row.0 <= 2 ? (5, 5) : (row.0 == 3 ? (50, 51) : (-100, -40))
                location.coordinates.append(objectsIn: [coordinates.0, coordinates.1])
                pet.location = location
                realm.add(pet)
                pets.append(pet)
            }
            pets[0].friends.append(objectsIn: [pets[2], pets[5]])   // ages 3, 6
            pets[1].friends.append(pets[5])                          // age 6
            pets[2].friends.append(pets[0])                          // age 1
        }
        return realm
    }

    @Test("each row gives the expected objects in both spellings", arguments: queryRows)
    func row(_ row: QueryRow) throws {
        let realm = try Self.makeRealm()
        let typed = realm.objects(QTPet.self).where(row.typed).map(\.id).sorted()
        let parsed = try realm.objects(QTPet.self).filter(validating: row.rql, arguments: row.arguments).map(\.id).sorted()
        #expect(typed == row.expected, "where {} for \(row.rql)")
        #expect(parsed == row.expected, "RQL \(row.rql)")
    }

    @Test("sorting, distinct, limit and aggregates follow Realm's rules")
    func sortDistinctAggregates() throws {
        let realm = try Self.makeRealm()
        let pets = realm.objects(QTPet.self)
        #expect(pets.sorted(byKeyPath: "weight", ascending: false).map(\.id) == [6, 5, 4, 3, 2, 1])
        #expect(pets.sorted(by: [SortDescriptor(keyPath: "owner.name"), SortDescriptor(keyPath: "age", ascending: false)])
            .map(\.id) == [6, 3, 2, 1, 5, 4])
        #expect(pets.sorted(by: \.name).first?.name == "Daisy")
        #expect(pets.distinct(by: ["kind"]).map(\.id) == [1, 2, 3])
        #expect(pets.filter("TRUEPREDICATE SORT(age DESC) LIMIT(2)").map(\.id) == [6, 5])
        // Pet 6 has no owner: a distinct key path through a nil link drops it, as in Realm.
        #expect(pets.filter("TRUEPREDICATE DISTINCT(owner.name)").map(\.id) == [1, 4])
        let minimum: Int? = pets.min(ofProperty: "age")
        let maximum: Double? = pets.max(ofProperty: "weight")
        let total: Int = pets.sum(ofProperty: "age")
        let average: Double? = pets.average(ofProperty: "weight")
        #expect(minimum == 1 && maximum == 8.5 && total == 21 && average == 6.0)
        let none = pets.where { $0.age > 100 }
        let emptyMin: Int? = none.min(ofProperty: "age")
        let emptySum: Int = none.sum(ofProperty: "age")
        #expect(emptyMin == nil && emptySum == 0)
        #expect(pets.min(of: \.age) == 1 && pets.sum(of: \.age) == 21)
        #expect(pets.index(matching: { $0.name == "Molly" }) == 2)
        #expect(pets.index(matching: "name == $0", "Sunny") == 4)
    }

    @Test("distinct(by:) through a link drops the objects whose link is nil, as Realm does")
    func distinctThroughNilLink() throws {
        let realm = try Self.makeRealm()
        let pets = realm.objects(QTPet.self)
        #expect(pets.distinct(by: ["owner.name"]).map(\.id) == [1, 4])
        #expect(pets.distinct(by: [\QTPet.owner?.name]).map(\.id) == [1, 4])
        #expect(pets.distinct(by: ["owner.city"]).map(\.id) == [1, 4])
        #expect(pets.distinct(by: ["owner"]).map(\.id) == [1, 4, 6])
        #expect(pets.sorted(byKeyPath: "id", ascending: false).distinct(by: ["owner.name"]).map(\.id) == [5, 3])
    }

    @Test("collection queries: lists, linking objects, primitives, maps")
    func collections() throws {
        let realm = try Self.makeRealm()
        let rex = try #require(realm.object(ofType: QTPet.self, forPrimaryKey: 1))
        #expect(rex.friends.where { $0.age > 4 }.map(\.id) == [6])
        #expect(rex.friends.filter("age < 5").map(\.id) == [3])
        #expect(rex.friends.sorted(byKeyPath: "age", ascending: false).map(\.id) == [6, 3])
        #expect(Array(rex.tags.sorted(ascending: true)) == ["fast", "good"])
        #expect(Array(rex.tags.distinct()) == ["good", "fast"])
        let any = AnyRealmCollection(rex.friends)
        #expect(any.where { $0.age == 3 }.count == 1)
        #expect(any.count == 2)
    }

    @Test("malformed queries and unknown properties throw from filter(validating:) and never trap")
    func errors() throws {
        let realm = try Self.makeRealm()
        let pets = realm.objects(QTPet.self)
        for bad in ["age >", "age >> 3", "nosuch == 1", "name BEGINSWITH", "(age > 1", "age > 1 SORT(", "owner.nosuch == 1",
                    "tags.@count ==", "SUBQUERY(friends, $x, $x.age > 1)", "age > $3"] {
            do {
                _ = try pets.filter(validating: bad, arguments: [1])
                Issue.record("'\(bad)' should throw")
            } catch let error as Realm.Error {
                #expect(error.code == Realm.Error.invalidQuery, "\(bad): \(error)")
            }
        }
        do {
            _ = try pets.filter(validating: "nosuch == 1")
        } catch let error as Realm.Error {
            #expect(error.message.contains("Invalid property name: property 'nosuch' not found in object of type 'QTPet'"))
        }
    }
}
