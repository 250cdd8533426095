import Foundation
@testable import Strata
import Testing

// `class X: Object, Codable` with @Persisted properties gets a synthesized conformance, as in
// Realm Swift: properties code under their names, optional ones may be missing, collections code
// as arrays and objects, ObjectId and Decimal128 as strings. Decoded objects are unmanaged and can
// be added; managed objects encode what the Realm holds (Realm Swift throws for those).

enum CodableKind: String, PersistableEnum, Codable {
    case draft, published
}

final class CodableAddress: EmbeddedObject, Codable {
    @Persisted var street: String
    @Persisted var city: String?
}

final class CodableChild: Object, Codable {
    @Persisted var name: String
    @Persisted var age: Int
}

final class CodableRecord: Object, Codable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var title: String
    @Persisted var subtitle: String?
    @Persisted var tags: List<String>
    @Persisted var children: List<CodableChild>
    @Persisted var labels: MutableSet<String>
    @Persisted var address: CodableAddress?
    @Persisted var scores: Map<String, Int>
    @Persisted var price: Decimal128
    @Persisted var created: Date
    @Persisted var token: UUID
    @Persisted var extra: AnyRealmValue
    @Persisted var kind: CodableKind
    @Persisted var link: URL?
    @Persisted var rating: Double?
}

@Suite("Codable models as in Realm Swift")
struct CodableModelTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: "codable-\(UUID().uuidString)",
            objectTypes: [CodableRecord.self, CodableChild.self, CodableAddress.self]))
    }

    private func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    private func sample() -> CodableRecord {
        let record = CodableRecord()
        record._id = try! ObjectId(string: "65a1b2c3d4e5f60718293a4b")
        record.title = "Strata"
        record.subtitle = "embedded"
        record.tags.append(objectsIn: ["swift", "linux"])
        record.children.append(CodableChild(value: ["name": "Ada", "age": 7]))
        record.children.append(CodableChild(value: ["name": "Bo", "age": 3]))
        record.labels.insert("a")
        record.address = CodableAddress(value: ["street": "Main St", "city": "Oslo"])
        record.scores["x"] = 1
        record.scores["y"] = 2
        record.price = try! Decimal128(string: "12.50")
        record.created = Date(timeIntervalSince1970: 1_700_000_000)
        record.token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        record.extra = .int(42)
        record.kind = .published
        record.link = URL(string: "https://strata.dev")
        record.rating = 4.5
        return record
    }

    private func expectSample(_ record: CodableRecord) {
        #expect(record._id.stringValue == "65a1b2c3d4e5f60718293a4b")
        #expect(record.title == "Strata")
        #expect(record.subtitle == "embedded")
        #expect(Array(record.tags) == ["swift", "linux"])
        #expect(record.children.map(\.name) == ["Ada", "Bo"])
        #expect(record.children.map(\.age) == [7, 3])
        #expect(Array(record.labels) == ["a"])
        #expect(record.address?.street == "Main St")
        #expect(record.address?.city == "Oslo")
        #expect(record.scores["x"] == 1 && record.scores["y"] == 2 && record.scores.count == 2)
        #expect(record.price.stringValue == "12.5")
        #expect(record.created == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(record.token == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(record.extra == .int(42))
        #expect(record.kind == .published)
        #expect(record.link == URL(string: "https://strata.dev"))
        #expect(record.rating == 4.5)
    }

    @Test("An unmanaged model round-trips through JSONEncoder and JSONDecoder")
    func unmanagedRoundTrip() throws {
        let data = try encoder().encode(sample())
        let decoded = try JSONDecoder().decode(CodableRecord.self, from: data)
        #expect(decoded.realm == nil)
        expectSample(decoded)
        #expect(try encoder().encode(decoded) == data)
    }

    @Test("ObjectId and Decimal128 encode as strings, lists and sets as arrays, maps and embedded objects as objects")
    func encodedShapes() throws {
        let data = try encoder().encode(sample())
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["_id"] as? String == "65a1b2c3d4e5f60718293a4b")
        #expect(json["price"] as? String == "12.5")
        #expect(json["tags"] as? [String] == ["swift", "linux"])
        #expect(json["labels"] as? [String] == ["a"])
        #expect((json["children"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Ada", "Bo"])
        #expect((json["address"] as? [String: Any])?["street"] as? String == "Main St")
        #expect((json["scores"] as? [String: Int]) == ["x": 1, "y": 2])
        #expect(json["token"] as? String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(json["extra"] as? Int == 42)
        #expect(json["kind"] as? String == "published")
        #expect(json["link"] as? String == "https://strata.dev")
    }

    @Test("Missing keys of optional properties decode as nil; a missing required key throws keyNotFound")
    func missingOptionalKeys() throws {
        let minimal = """
        {"_id": "65a1b2c3d4e5f60718293a4b", "title": "t", "tags": [], "children": [], "labels": [],
         "scores": {}, "price": "1", "created": 0, "token": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
         "extra": null, "kind": "draft"}
        """
        let record = try JSONDecoder().decode(CodableRecord.self, from: Data(minimal.utf8))
        #expect(record.subtitle == nil)
        #expect(record.address == nil)
        #expect(record.link == nil)
        #expect(record.rating == nil)
        #expect(record.extra == .none)
        #expect(record.price == Decimal128(1))
        let withNulls = minimal.replacingOccurrences(of: "\"title\": \"t\"",
                                                     with: "\"title\": \"t\", \"subtitle\": null, \"address\": null")
        #expect(try JSONDecoder().decode(CodableRecord.self, from: Data(withNulls.utf8)).subtitle == nil)
        let noTitle = minimal.replacingOccurrences(of: "\"title\": \"t\", ", with: "")
        #expect {
            _ = try JSONDecoder().decode(CodableRecord.self, from: Data(noTitle.utf8))
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "title"
        }
    }

    @Test("Decoded objects can be added to a Realm, with their children, embedded object and collections")
    func decodedObjectsCanBeAdded() throws {
        let data = try encoder().encode(sample())
        let decoded = try JSONDecoder().decode(CodableRecord.self, from: data)
        let realm = try realm()
        try realm.write { realm.add(decoded) }
        #expect(decoded.realm != nil)
        let stored = try #require(realm.object(ofType: CodableRecord.self,
                                               forPrimaryKey: try ObjectId(string: "65a1b2c3d4e5f60718293a4b")))
        expectSample(stored)
        #expect(realm.objects(CodableChild.self).count == 2)
        // Decoding again with the same key updates the existing object.
        let update = try JSONDecoder().decode(CodableRecord.self, from: data)
        update.title = "Updated"
        try realm.write { realm.add(update, update: .modified) }
        #expect(realm.objects(CodableRecord.self).count == 1)
        #expect(stored.title == "Updated")
    }

    @Test("A managed object encodes the values in the Realm, including ones written after it was added")
    func managedObjectsEncode() throws {
        let realm = try realm()
        let record = sample()
        try realm.write { realm.add(record) }
        let managed = try #require(realm.objects(CodableRecord.self).first)
        try realm.write {
            managed.title = "Written later"
            managed.tags.append("managed")
            managed.address?.city = nil
            managed.scores["z"] = 3
        }
        let decoded = try JSONDecoder().decode(CodableRecord.self, from: try encoder().encode(managed))
        #expect(decoded.title == "Written later")
        #expect(Array(decoded.tags) == ["swift", "linux", "managed"])
        #expect(decoded.address?.street == "Main St")
        #expect(decoded.address?.city == nil)
        #expect(decoded.scores["z"] == 3)
        #expect(decoded.children.map(\.name) == ["Ada", "Bo"])
        #expect(decoded.price.stringValue == "12.5")
        #expect(decoded.link == URL(string: "https://strata.dev"))
        // Encoding a Results of managed objects works too.
        let array = try JSONDecoder().decode([CodableChild].self,
                                             from: try encoder().encode(Array(realm.objects(CodableChild.self))))
        #expect(array.map(\.name).sorted() == ["Ada", "Bo"])
    }

    @Test("AnyRealmValue codes as the wrapped value: null, booleans, numbers, strings, arrays and objects")
    func anyRealmValueCoding() throws {
        let values: [AnyRealmValue] = [.none, .bool(true), .int(3), .double(2.5), .string("s"),
                                       .fromArray([.int(1), .string("two")]), .fromDictionary(["k": .bool(false)])]
        let data = try encoder().encode(values)
        #expect(String(decoding: data, as: UTF8.self) == #"[null,true,3,2.5,"s",[1,"two"],{"k":false}]"#)
        let decoded = try JSONDecoder().decode([AnyRealmValue].self, from: data)
        #expect(Array(decoded.prefix(5)) == Array(values.prefix(5)))
        #expect(decoded[5].listValue.map(Array.init) == [.int(1), .string("two")])
        #expect(decoded[6].dictionaryValue?["k"] == .bool(false))
        #expect(throws: EncodingError.self) { _ = try encoder().encode([AnyRealmValue.object(DynamicLink())]) }
    }
}
