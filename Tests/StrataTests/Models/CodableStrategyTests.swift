import Foundation
@testable import Strata
import Testing

// `@Persisted` codes through a single-value container, as Realm Swift does, so JSONEncoder's and
// JSONDecoder's strategies for dates and data apply to properties, optionals and the elements of
// collections; a Map's keys are left alone by key strategies, as for a Swift dictionary.

final class StrategyCoded: Object, Codable {
    @Persisted var date: Date
    @Persisted var data: Data
    @Persisted var dateOpt: Date?
    @Persisted var dataOpt: Data?
    @Persisted var dateList: List<Date>
    @Persisted var dateOptList: List<Date?>
    @Persisted var dataSet: MutableSet<Data>
    @Persisted var dateMap: Map<String, Date>
    @Persisted var dataOptMap: Map<String, Data?>
    @Persisted var mixed: AnyRealmValue
}

/// The JSON shape of Realm Swift's documented model (CodableTests' `ModernCodableObject`),
/// reduced to one property of each kind.
final class RealmShapedCoded: Object, Codable {
    @Persisted var bool: Bool
    @Persisted var int: Int
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var date: Date
    @Persisted var data: Data
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var dateOpt: Date?
    @Persisted var dataOpt: Data?
    @Persisted var decimalOpt: Decimal128?
    @Persisted var intOpt: Int?
    @Persisted var dataList: List<Data>
    @Persisted var dateOptList: List<Date?>
    @Persisted var decimalSet: MutableSet<Decimal128>
    @Persisted var objectIdMap: Map<String, ObjectId>
    @Persisted var uuidOptMap: Map<String, UUID?>
}

@Suite("Codable follows the encoder's and decoder's strategies")
struct CodableStrategyTests {
    /// Every date the sample holds, so each kind of property is checked.
    static let dates = (1...6).map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0)) }

    private func sample() -> StrategyCoded {
        let object = StrategyCoded()
        object.date = Self.dates[0]
        object.data = Data("abc".utf8)
        object.dateOpt = Self.dates[1]
        object.dataOpt = Data([0, 255])
        object.dateList.append(Self.dates[2])
        object.dateOptList.append(objectsIn: [Self.dates[3], nil])
        object.dataSet.insert(Data("set".utf8))
        object.dateMap["someKey"] = Self.dates[4]
        object.dataOptMap["other_key"] = Data("map".utf8)
        object.mixed = .date(Self.dates[5])
        return object
    }

    private func json(_ object: some Encodable, _ encoder: JSONEncoder) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: encoder.encode(object)) as? [String: Any])
    }

    private func expectSameValues(_ decoded: StrategyCoded, _ original: StrategyCoded) {
        #expect(decoded.date == original.date)
        #expect(decoded.data == original.data)
        #expect(decoded.dateOpt == original.dateOpt)
        #expect(decoded.dataOpt == original.dataOpt)
        #expect(Array(decoded.dateList) == Array(original.dateList))
        #expect(Array(decoded.dateOptList) == Array(original.dateOptList))
        #expect(Array(decoded.dataSet) == Array(original.dataSet))
        #expect(decoded.dateMap["someKey"] == original.dateMap["someKey"])
        #expect(decoded.dataOptMap["other_key"] == original.dataOptMap["other_key"])
    }

    /// The date strategies paired with how they write `dates[0]` and whether they read back.
    static let dateStrategies: [(String, JSONEncoder.DateEncodingStrategy, JSONDecoder.DateDecodingStrategy)] = [
        ("iso8601", .iso8601, .iso8601),
        ("secondsSince1970", .secondsSince1970, .secondsSince1970),
        ("millisecondsSince1970", .millisecondsSince1970, .millisecondsSince1970),
        ("deferredToDate", .deferredToDate, .deferredToDate),
    ]

    @Test("Each date strategy applies to properties, optionals, lists, maps and AnyRealmValue, and round-trips",
          arguments: dateStrategies)
    func dateStrategyRoundTrip(name: String, encoding: JSONEncoder.DateEncodingStrategy,
                               decoding: JSONDecoder.DateDecodingStrategy) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = encoding
        let original = sample()
        let fields = try json(original, encoder)
        let expected: [Any] = try Self.dates.map { date in
            let wrapped = try #require(try JSONSerialization.jsonObject(with: encoder.encode([date])) as? [Any])
            return wrapped[0]
        }
        func same(_ value: Any?, _ index: Int) -> Bool {
            "\(value.map { "\($0)" } ?? "nil")" == "\(expected[index])"
        }
        #expect(same(fields["date"], 0), "\(name)")
        #expect(same(fields["dateOpt"], 1), "\(name)")
        #expect(same((fields["dateList"] as? [Any])?.first, 2), "\(name)")
        #expect(same((fields["dateOptList"] as? [Any])?.first, 3), "\(name)")
        #expect(same((fields["dateMap"] as? [String: Any])?["someKey"], 4), "\(name)")
        #expect(same(fields["mixed"], 5), "\(name)")
        if name == "iso8601" {
            #expect(fields["date"] as? String == "2023-11-14T22:13:21Z")
        } else if name == "secondsSince1970" {
            #expect(fields["date"] as? Double == 1_700_000_001)
        } else if name == "deferredToDate" {
            #expect(fields["date"] as? Double == Self.dates[0].timeIntervalSinceReferenceDate)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = decoding
        expectSameValues(try decoder.decode(StrategyCoded.self, from: encoder.encode(original)), original)
    }

    @Test("Data encodes as Base64 by default, everywhere, and Base64 JSON decodes")
    func dataIsBase64ByDefault() throws {
        let original = sample()
        let data = try JSONEncoder().encode(original)
        let fields = try json(original, JSONEncoder())
        #expect(fields["data"] as? String == "YWJj")
        #expect(fields["dataOpt"] as? String == "AP8=")
        #expect(fields["dataSet"] as? [String] == ["c2V0"])
        #expect(fields["dataOptMap"] as? [String: String] == ["other_key": "bWFw"])
        expectSameValues(try JSONDecoder().decode(StrategyCoded.self, from: data), original)
    }

    @Test("Custom date and data strategies are called for every property and element")
    func customStrategies() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode("at \(Int(date.timeIntervalSince1970))")
        }
        encoder.dataEncodingStrategy = .custom { data, encoder in
            var container = encoder.singleValueContainer()
            try container.encode("\(data.count) bytes")
        }
        let fields = try json(sample(), encoder)
        #expect(fields["date"] as? String == "at 1700000001")
        #expect(fields["dateOpt"] as? String == "at 1700000002")
        #expect(fields["dateList"] as? [String] == ["at 1700000003"])
        #expect((fields["dateOptList"] as? [Any])?.first as? String == "at 1700000004")
        #expect(fields["dateMap"] as? [String: String] == ["someKey": "at 1700000005"])
        #expect(fields["mixed"] as? String == "at 1700000006")
        #expect(fields["data"] as? String == "3 bytes")
        #expect(fields["dataOpt"] as? String == "2 bytes")
        #expect(fields["dataSet"] as? [String] == ["3 bytes"])
        #expect(fields["dataOptMap"] as? [String: String] == ["other_key": "3 bytes"])
    }

    @Test("A custom date decoding strategy reads every date")
    func customDateDecoding() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            return Date(timeIntervalSince1970: Double(text.dropFirst(3)) ?? 0)
        }
        let text = #"""
        {"date": "at 10", "data": "", "dateOpt": "at 20", "dateList": ["at 30"], "dateOptList": [null, "at 40"],
         "dataSet": [], "dateMap": {"k": "at 50"}, "dataOptMap": {"n": null}, "mixed": null}
        """#
        let object = try decoder.decode(StrategyCoded.self, from: Data(text.utf8))
        #expect(object.date == Date(timeIntervalSince1970: 10))
        #expect(object.dateOpt == Date(timeIntervalSince1970: 20))
        #expect(Array(object.dateList) == [Date(timeIntervalSince1970: 30)])
        #expect(Array(object.dateOptList) == [nil, Date(timeIntervalSince1970: 40)])
        #expect(object.dateMap["k"] == Date(timeIntervalSince1970: 50))
        #expect(object.dataOptMap["n"] == .some(nil))
    }

    @Test("Missing optional keys decode as nil, null decodes as nil, and a null non-optional throws")
    func optionalKeys() throws {
        let minimal = #"""
        {"date": 0, "data": "", "dateList": [], "dateOptList": [], "dataSet": [], "dateMap": {},
         "dataOptMap": {}, "mixed": null}
        """#
        let object = try JSONDecoder().decode(StrategyCoded.self, from: Data(minimal.utf8))
        #expect(object.dateOpt == nil)
        #expect(object.dataOpt == nil)
        #expect(object.date == Date(timeIntervalSinceReferenceDate: 0))
        let nulls = minimal.replacingOccurrences(of: #""mixed": null"#,
                                                 with: #""mixed": null, "dateOpt": null, "dataOpt": null"#)
        let withNulls = try JSONDecoder().decode(StrategyCoded.self, from: Data(nulls.utf8))
        #expect(withNulls.dateOpt == nil)
        #expect(withNulls.dataOpt == nil)
        let nullDate = minimal.replacingOccurrences(of: #""date": 0"#, with: #""date": null"#)
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(StrategyCoded.self, from: Data(nullDate.utf8))
        }
    }

    @Test("A key strategy converts property names but leaves Map keys alone, camelCase or snake_case")
    func keyStrategyLeavesMapKeys() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let fields = try json(sample(), encoder)
        #expect(fields["date_map"] != nil)
        #expect((fields["date_map"] as? [String: Any])?.keys.first == "someKey")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let decoded = try decoder.decode(StrategyCoded.self, from: encoder.encode(sample()))
        #expect(decoded.dateMap["someKey"] == Self.dates[4])
        #expect(decoded.dataOptMap["other_key"] == Data("map".utf8))
    }

    @Test("JSON in the shape Realm Swift documents decodes, and encodes back to the same text")
    func realmShapedJSON() throws {
        // "ZGVm" is Base64 for "def"; the date is 2.5 s after 2001-01-01 (deferredToDate).
        let text = #"""
        {"bool":true,"data":"ZGVm","dataList":["ZGVm"],"dataOpt":"ZGVm","date":2.5,"dateOpt":2.5,\#
        "dateOptList":[2.5,null],"decimal":"1.5E2","decimalOpt":"1.5E2","decimalSet":["1.5E2"],"double":2.5,\#
        "int":123,"intOpt":123,"objectId":"1234567890abcdef12345678",\#
        "objectIdMap":{"foo":"1234567890abcdef12345678"},"string":"abc",\#
        "uuid":"00000000-0000-0000-0000-000000000000","uuidOptMap":{"foo":"00000000-0000-0000-0000-000000000000"}}
        """#
        let object = try JSONDecoder().decode(RealmShapedCoded.self, from: Data(text.utf8))
        #expect(object.date == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(object.data == Data("def".utf8))
        #expect(object.decimal == Decimal128(150))
        #expect(object.objectId == ObjectId("1234567890abcdef12345678"))
        #expect(object.dateOpt == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(object.dataOpt == Data("def".utf8))
        #expect(object.intOpt == 123)
        #expect(Array(object.dataList) == [Data("def".utf8)])
        #expect(Array(object.dateOptList) == [Date(timeIntervalSinceReferenceDate: 2.5), nil])
        #expect(Array(object.decimalSet) == [Decimal128(150)])
        #expect(object.objectIdMap["foo"] == ObjectId("1234567890abcdef12345678"))
        #expect(object.uuidOptMap["foo"] == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(object), as: UTF8.self) == text)
    }
}
