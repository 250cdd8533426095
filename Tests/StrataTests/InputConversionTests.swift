import Foundation
@testable import Strata
import StrataEngine
import Testing

/// Dates and numbers of every range: Strata stores each date as a Timestamp (Int64 seconds and
/// nanoseconds), clamping what does not fit exactly as Realm Swift does.
final class ClampedDates: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var date: Date
    @Persisted var optionalDate: Date?
    @Persisted var dates: List<Date>
    @Persisted var any: AnyRealmValue
    @Persisted var count: Int
}

/// Dates whose time interval does not fit a Timestamp (or is not a number), and what they are
/// stored as.
private let outOfRange: [(date: Date, stored: Timestamp)] = [
    (Date(timeIntervalSince1970: 1e300), .max),
    (Date(timeIntervalSince1970: -1e300), .min),
    (Date(timeIntervalSince1970: .infinity), .max),
    (Date(timeIntervalSince1970: -.infinity), .min),
    (Date(timeIntervalSince1970: .nan), Timestamp(seconds: 0)),
    (Date(timeIntervalSinceReferenceDate: Date.distantFuture.timeIntervalSinceReferenceDate * 1e10), .max),
    (Date(timeIntervalSince1970: 9_223_372_036_854_775_808.0), .max),
    (Date(timeIntervalSince1970: 1e19), .max),
    (Date(timeIntervalSince1970: -9.3e18), .min),
]

@Suite("Input conversions")
struct InputConversionTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "conversions-\(UUID())",
                                                     objectTypes: [ClampedDates.self]))
    }

    @Test("a date outside the Timestamp range is clamped as Realm clamps it; NaN is the epoch")
    func timestampClamping() {
        for (date, stored) in outOfRange {
            #expect(Timestamp(date) == stored, "\(date.timeIntervalSince1970)")
        }
        // The edges that still fit are kept exactly.
        #expect(Timestamp(Date(timeIntervalSince1970: -9_223_372_036_854_775_808.0)) == Timestamp(seconds: .min))
        // A Date counts from 2001: the last double before 2^63 - 978,307,200 seconds from then.
        #expect(Timestamp(Date(timeIntervalSinceReferenceDate: 9_223_372_035_876_467_712.0))
                == Timestamp(seconds: 9_223_372_036_854_774_912))
        #expect(Timestamp(Date(timeIntervalSince1970: -1.5)) == Timestamp(seconds: -2, nanoseconds: 500_000_000))
        for date in [Date.distantFuture, .distantPast, Date(timeIntervalSince1970: 1_700_000_000.25)] {
            #expect(Date(Timestamp(date)) == date)
        }
    }

    @Test("Realm.add, create(_:value:), property setters, collections and AnyRealmValue take any date without trapping")
    func outOfRangeDatesAreStored() throws {
        let realm = try realm()
        for (index, (date, stored)) in outOfRange.enumerated() {
            let expected = Date(stored)
            try realm.write {
                let added = ClampedDates()
                added.id = index * 10
                added.date = date
                added.optionalDate = date
                added.dates.append(date)
                added.any = .date(date)
                realm.add(added)
                let created = realm.create(ClampedDates.self,
                                           value: ["id": index * 10 + 1, "date": date, "optionalDate": date])
                created.date = date
                created.dates.append(date)
                created.any = .date(date)
            }
            for id in [index * 10, index * 10 + 1] {
                let object = try #require(realm.object(ofType: ClampedDates.self, forPrimaryKey: id))
                #expect(object.date == expected, "\(date.timeIntervalSince1970)")
                #expect(object.optionalDate == expected)
                #expect(Array(object.dates) == [expected])
                #expect(object.any == .date(expected))
            }
        }
        // Query arguments are converted the same way.
        let later = realm.objects(ClampedDates.self).filter("date >= $0", Date(timeIntervalSince1970: 1e300))
        #expect(later.count == 2 * outOfRange.filter { $0.stored == .max }.count)
        let all = realm.objects(ClampedDates.self).where { $0.date >= Date(timeIntervalSince1970: -.infinity) }
        #expect(all.count == 2 * outOfRange.count)
    }

    @Test("an ObjectId from a date far outside the range does not trap: seconds clamped, then cut to 32 bits")
    func objectIdFromOutOfRangeDate() {
        let id = ObjectId(timestamp: Date(timeIntervalSince1970: 1e300), machineId: 1, processId: 1)
        #expect(id.timestamp == Date(timeIntervalSince1970: Double(UInt32.max)))
        let nan = ObjectId(timestamp: Date(timeIntervalSince1970: .nan), machineId: 1, processId: 1)
        #expect(nan.timestamp == Date(timeIntervalSince1970: 0))
    }

    @Test("hostile Decimal128 and ObjectId strings are answered with an error or a value, never a trap")
    func hostileParsing() {
        let decimals = [
            "1e99999999999999999999999999", "-1E-99999999999999999999999999", String(repeating: "9", count: 100_000),
            "0." + String(repeating: "0", count: 100_000) + "1", "1e-9223372036854775808", "1e9223372036854775807",
            "NaN", "-Infinity", "", "-", "e5", "1e", "１２３", "1.2.3", "\u{0}1",
        ]
        for text in decimals {
            _ = try? Decimal128(string: text)
            _ = Decimal128(text)
        }
        #expect(throws: (any Error).self) { try Decimal128(string: "1.2.3") }
        let objectIds = ["", "zz" + String(repeating: "0", count: 22), String(repeating: "f", count: 25),
                         "é" + String(repeating: "0", count: 23)]
        for text in objectIds {
            #expect(throws: (any Error).self, "\(text)") { try ObjectId(string: text) }
        }
    }

    @Test("the average of Int properties near Int.max is clamped to Int.max, not trapped on")
    func intAverageSaturates() throws {
        let realm = try realm()
        try realm.write {
            realm.create(ClampedDates.self, value: ["id": 1, "count": Int.max])
            realm.create(ClampedDates.self, value: ["id": 2, "count": Int.max])
        }
        let average: Int? = realm.objects(ClampedDates.self).average(ofProperty: "count")
        #expect(average == Int.max)
        #expect(QueryArguments.saturatingInt64(-1e300) == .min)
        #expect(QueryArguments.saturatingInt64(.nan) == 0)
        #expect(QueryArguments.saturatingInt64(-2.9) == -2)
    }

    @Test("a migration that sets an integer too large for 64 bits fails with invalidInput instead of trapping")
    func migrationIntegerOutOfRange() throws {
        let file = try MigrationFile()
        defer { file.remove() }
        try file.write([MigPersonV1.self]) { realm in
            realm.create(MigPersonV1.self, value: ["firstName": "Ada", "lastName": "L", "age": 36])
        }
        let configuration = file.configuration([MigPersonWithFullName.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { _, newObject in
                newObject?["age"] = UInt64.max
            }
        }
        let error = #expect(throws: Realm.Error.self) { try file.open(configuration) { _ in } }
        #expect(error?.code == Realm.Error.invalidInput)
        #expect(error?.localizedDescription.contains("does not fit in a 64-bit integer") == true,
                "\(String(describing: error))")
    }
}
