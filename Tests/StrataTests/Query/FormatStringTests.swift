import Foundation
import Strata
import Testing

final class FSDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted(originProperty: "dog") var owners: LinkingObjects<FSPerson>
}

final class FSPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var nickname: String?
    @Persisted var age: Int
    @Persisted var height: Double
    @Persisted var done: Bool
    @Persisted var born: Date
    @Persisted var photo: Data?
    @Persisted var code: ObjectId
    @Persisted var token: UUID
    @Persisted var price: Decimal128
    @Persisted var dog: FSDog?
    @Persisted var tags: List<String>
}

let fsCodes = (0..<4).map { _ in ObjectId.generate() }
let fsTokens = (0..<4).map { _ in UUID() }
let fsEpoch = Date(timeIntervalSince1970: 1_600_000_000)

/// One real-world style call: the format, its arguments and the ids it returns (ascending).
struct FormatRow: CustomTestStringConvertible, Sendable {
    let format: String
    let arguments: [any Sendable]
    let expected: [Int]

    init(_ format: String, _ arguments: [any Sendable], _ expected: [Int]) {
        self.format = format
        self.arguments = arguments
        self.expected = expected
    }

    var testDescription: String { format }
}

/// Calls as public Realm Swift code writes them, each with the objects Realm returns.
let formatRows: [FormatRow] = [
    FormatRow("name == %@", ["Ada"], [1]),
    FormatRow("name == %@", [String?("Bo") as any Sendable], [2]),
    FormatRow("age > %d", [18], [1, 3]),
    FormatRow("age >= %ld AND age <= %lld", [17, 40], [1, 2]),
    FormatRow("age == %i OR age == %u", [17, 64], [2, 3]),
    FormatRow("height > %f", [1.7], [1, 3]),
    FormatRow("height < %lf", [2], [1, 2, 3, 4]),
    FormatRow("height >= %g", [Float(1.8)], [3]),
    FormatRow("name == %s", ["Bo"], [2]),
    FormatRow("%K == %@", ["name", "Ada"], [1]),
    FormatRow("%K > %d", ["dog.id", 1], [2]),
    FormatRow("id IN %@", [[1, 3, 99]], [1, 3]),
    FormatRow("name IN %@", [Set(["Bo", "Cy"])], [2, 3]),
    FormatRow("done == NO", [], [2, 4]),
    FormatRow("done == YES", [], [1, 3]),
    FormatRow("done = true AND age > 20", [], [1, 3]),
    FormatRow("done == FALSE", [], [2, 4]),
    FormatRow("dog.name BEGINSWITH[c] %@", ["r"], [1]),
    FormatRow("dog == nil", [], [3, 4]),
    FormatRow("nickname == %@", [String?.none as any Sendable], [2, 3, 4]),
    FormatRow("name == %@", ["O'Brien \"the\" \\ %@"], [4]),
    FormatRow("name CONTAINS %@", ["'"], [4]),
    FormatRow("name == '%@'", [], []),
    FormatRow("born > %@", [fsEpoch.addingTimeInterval(1.5)], [3, 4]),
    FormatRow("photo == %@", [Data([1, 2, 3])], [1]),
    FormatRow("code == %@", [fsCodes[2]], [3]),
    FormatRow("token == %@", [fsTokens[1]], [2]),
    FormatRow("price > %@", [Decimal128(number: 2)], [3, 4]),
    FormatRow("ANY tags == %@", ["blue"], [1, 3]),
    FormatRow("%@ IN tags", ["blue"], [1, 3]),
    FormatRow("'red' IN tags", [], [1]),
    FormatRow("tags.@count >= %d", [2], [1]),
    FormatRow("NOT (name BEGINSWITH %@) AND age < %d", ["A", 40], [2, 4]),
    FormatRow("name == $0 OR name == $1", ["Ada", "Bo"], [1, 2]),
]

@Suite("Format strings: filter as Realm Swift code writes it")
struct FormatStringTests {
    static func makeRealm() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: "format-\(UUID())", objectTypes: [FSPerson.self, FSDog.self]))
        try realm.write {
            let rex = realm.create(FSDog.self, value: ["id": 1, "name": "Rex"])
            let fido = realm.create(FSDog.self, value: ["id": 2, "name": "Fido"])
            let rows: [(String, String?, Int, Double, Bool, FSDog?, [String])] = [
                ("Ada", "A", 36, 1.75, true, rex, ["red", "blue"]),
                ("Bo", nil, 17, 1.6, false, fido, ["green"]),
                ("Cy", nil, 64, 1.8, true, nil, ["blue"]),
                ("O'Brien \"the\" \\ %@", nil, 12, 1.2, false, nil, []),
            ]
            for (offset, row) in rows.enumerated() {
                let person = FSPerson()
                person.id = offset + 1
                person.name = row.0
                person.nickname = row.1
                person.age = row.2
                person.height = row.3
                person.done = row.4
                person.born = fsEpoch.addingTimeInterval(Double(offset))
                person.photo = offset == 0 ? Data([1, 2, 3]) : nil
                person.code = fsCodes[offset]
                person.token = fsTokens[offset]
                person.price = Decimal128(number: NSNumber(value: offset + 1))
                person.dog = row.5
                person.tags.append(objectsIn: row.6)
                realm.add(person)
            }
        }
        return realm
    }

    @Test("each real-world filter call returns what Realm returns", arguments: formatRows)
    func row(_ row: FormatRow) throws {
        let realm = try Self.makeRealm()
        let people = realm.objects(FSPerson.self)
        let ids = try people.filter(validating: row.format, arguments: row.arguments).map(\.id).sorted()
        #expect(ids == row.expected)
    }

    @Test("filter(_:_:) and filter(validating:_:) take the same variadic arguments")
    func variadic() throws {
        let realm = try Self.makeRealm()
        let people = realm.objects(FSPerson.self)
        #expect(people.filter("name == %@ AND age > %d", "Ada", 18).map(\.id) == [1])
        #expect(try people.filter(validating: "name == %@ AND age > %d", "Ada", 18).map(\.id) == [1])
        #expect(try people.filter(validating: "age > $0", 18).count == 2)
        let names = ["Bo", "Cy"]
        #expect(people.filter("name IN %@", names).map(\.id) == [2, 3])
    }

    @Test("%@ binds an object, a Results or a List, as Realm compares links")
    func objectsAndCollections() throws {
        let realm = try Self.makeRealm()
        let people = realm.objects(FSPerson.self)
        let rex = try #require(realm.object(ofType: FSDog.self, forPrimaryKey: 1))
        #expect(people.filter("dog == %@", rex).map(\.id) == [1])
        #expect(people.filter("dog != %@", rex).map(\.id) == [2, 3, 4])
        #expect(rex.owners.filter("age > %d AND name == %@", 30, "Ada").map(\.id) == [1])
        #expect(rex.owners.filter("age > %d", 40).isEmpty)
        #expect(AnyRealmCollection(people).filter("%K < %d", "age", 18).map(\.id).sorted() == [2, 4])
        #expect(people.sectioned(by: \.done, ascending: true).count == 2)
        #expect(people.filter("done == YES").sectioned(by: \.done, ascending: true).count == 1)
        let dogs = realm.objects(FSDog.self).filter("name == %@", "Fido")
        #expect(people.filter("dog IN %@", dogs).map(\.id) == [2])
        let ada = try #require(realm.object(ofType: FSPerson.self, forPrimaryKey: 1))
        let bo = try #require(realm.object(ofType: FSPerson.self, forPrimaryKey: 2))
        #expect(people.filter("name IN %@", ada.tags).isEmpty)
        #expect(people.filter("ANY tags IN %@", bo.tags).map(\.id) == [2])
    }

    @Test("index(matching:) and SORT/LIMIT take format arguments too")
    func indexAndSuffixes() throws {
        let realm = try Self.makeRealm()
        let people = realm.objects(FSPerson.self).sorted(byKeyPath: "age")
        #expect(people.index(matching: "name == %@", "Ada") == 2)
        #expect(people.index(matching: "age > %d", 100) == nil)
        let oldest = realm.objects(FSPerson.self).filter("TRUEPREDICATE SORT(%K DESC) LIMIT(%d)", "age", 2)
        #expect(oldest.map(\.id) == [3, 1])
    }

    @Test("a wrong argument count or type throws invalidQuery from filter(validating:)")
    func argumentMismatch() throws {
        let realm = try Self.makeRealm()
        let people = realm.objects(FSPerson.self)
        let calls: [(String, [Any])] = [
            ("name == %@", []),
            ("name == %@", ["a", "b"]),
            ("age > %d", ["eighteen"]),
            ("age > %d", [1.5]),
            ("%K == 1", [1]),
            ("%K == 1", ["no such"]),
            ("%K == 1", ["nosuch"]),
            ("name == %@ AND age > $0", ["a", 1]),
            ("age > %x", [1]),
            ("name == 100%%", []),
        ]
        for (format, arguments) in calls {
            do {
                _ = try people.filter(validating: format, arguments: arguments)
                Issue.record("\(format) with \(arguments) should throw")
            } catch let error as Realm.Error {
                #expect(error.code == Realm.Error.invalidQuery, "\(format): \(error)")
            }
        }
    }

    @Test("a mismatched argument in filter(_:_:) traps with Realm's message, as Realm's exception does")
    func trapsInNonThrowingFilter() async {
        await #expect(processExitsWith: .failure) {
            let realm = try FormatStringTests.makeRealm()
            _ = realm.objects(FSPerson.self).filter("age > %d", "x")
        }
    }
}

@Suite("Format strings: arguments from JSONSerialization")
struct FormatStringJSONArgumentTests {
    @Test("NSNumber arguments compare as the integer, double or bool they hold")
    func numbers() throws {
        let realm = try FormatStringTests.makeRealm()
        let people = realm.objects(FSPerson.self)
        let json = try JSONSerialization.jsonObject(with: Data(#"{"age": 17, "height": 1.7, "done": true, "one": 1}"#.utf8))
        let object = try #require(json as? [String: Any])
        #expect(people.filter("age == %@", object["age"]!).map(\.id) == [2])
        #expect(people.filter("height > %@", object["height"]!).map(\.id) == [1, 3])
        #expect(people.filter("done == %@", object["done"]!).map(\.id) == [1, 3])
        #expect(people.filter("id == %@", object["one"]!).map(\.id) == [1])
        #expect(people.filter("id == %@", NSNumber(value: 2)).map(\.id) == [2])
    }
}

@Suite("Format strings: values of the wrong type")
struct FormatStringTypeMismatchTests {
    @Test("comparing a property with a value of another type throws invalidQuery, as Realm does, instead of matching nothing",
          arguments: [
              ("age > %@", ["eighteen"] as [any Sendable]), ("name == %@", [5]), ("done == %@", ["yes"]), ("born > %@", [5]),
              ("code == %@", ["abc"]), ("name BEGINSWITH %@", [1]), ("age IN %@", [["a", "b"]]),
              ("age BETWEEN %@", [["a", "z"]]), ("%@ IN tags", [3]), ("height < %@", [Date()]),
          ])
    func mismatch(_ format: String, _ arguments: [any Sendable]) throws {
        let realm = try FormatStringTests.makeRealm()
        do {
            _ = try realm.objects(FSPerson.self).filter(validating: format, arguments: arguments)
            Issue.record("\(format) should throw")
        } catch let error as Realm.Error {
            #expect(error.code == Realm.Error.invalidQuery)
            #expect(error.message.contains("Unsupported comparison"), "\(error)")
        }
    }
}
