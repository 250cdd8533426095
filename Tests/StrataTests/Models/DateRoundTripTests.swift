import Foundation
@testable import Strata
import StrataTestSupport
import Testing

// A Date written and read back is `==` to the one written, in properties, optionals, lists, sets,
// maps and AnyRealmValue: timestamps keep nanoseconds, as Realm's do, taken from the Date's own
// count of seconds since 2001 so no bit is rounded away on the way.

final class DateHolder: Object {
    @Persisted var date: Date
    @Persisted var dateOpt: Date?
    @Persisted var dates: List<Date>
    @Persisted var dateSet: MutableSet<Date>
    @Persisted var dateMap: Map<String, Date>
    @Persisted var mixed: AnyRealmValue
}

@Suite("Dates round-trip bit-exactly")
struct DateRoundTripTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: "dates-\(UUID().uuidString)", objectTypes: [DateHolder.self]))
    }

    /// A random date the round trip keeps exactly: either any `Double` at least 2^23 seconds
    /// (97 days) from 2001-01-01, where its resolution is coarser than 2 ns, or, nearer, the
    /// `Double` nearest to a whole number of nanoseconds (negative ones included).
    private static func randomDate(_ random: inout SeededRandom) -> Date {
        if Bool.random(using: &random) {
            let magnitude = Double(sign: .plus, exponent: Int.random(in: 23...36, using: &random),
                                   significand: Double.random(in: 1..<2, using: &random))
            return Date(timeIntervalSinceReferenceDate: Bool.random(using: &random) ? magnitude : -magnitude)
        }
        let limit: Int64 = 8_388_608 * 1_000_000_000
        let nanoseconds = Int64.random(in: -limit...limit, using: &random)
        return Date(timeIntervalSinceReferenceDate: Double(nanoseconds) / 1e9)
    }

    /// Dates at the edges: now, the ends Foundation names, either side of both epochs.
    static let edgeDates: [Date] = [
        Date(), .distantPast, .distantFuture, Date(timeIntervalSince1970: 0), Date(timeIntervalSinceReferenceDate: 0),
        Date(timeIntervalSince1970: -0.5), Date(timeIntervalSinceReferenceDate: -0.5),
        Date(timeIntervalSinceReferenceDate: -1e-9), Date(timeIntervalSinceReferenceDate: 0.999_999_999),
        Date(timeIntervalSinceReferenceDate: 5.123_456_789), Date(timeIntervalSinceReferenceDate: -5.123_456_789),
        Date(timeIntervalSince1970: 1_700_000_000.123_456_7), Date(timeIntervalSinceReferenceDate: -8_000_000_000.25),
    ]

    @Test("Random and edge dates read back == in properties, optionals, lists, sets, maps and AnyRealmValue")
    func randomDatesRoundTrip() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("DateRoundTripTests seed: \(seed) (STRATA_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        let dates = Self.edgeDates + (0..<300).map { _ in Self.randomDate(&random) }
        let realm = try realm()
        try realm.write {
            for date in dates {
                let holder = DateHolder()
                holder.date = date
                holder.dateOpt = date
                holder.dates.append(date)
                holder.dateSet.insert(date)
                holder.dateMap["d"] = date
                holder.mixed = .date(date)
                realm.add(holder)
            }
        }
        let stored = Array(realm.objects(DateHolder.self))
        #expect(stored.count == dates.count)
        for (holder, date) in zip(stored, dates) {
            let bits = "\(date.timeIntervalSinceReferenceDate.bitPattern) (seed \(seed))"
            #expect(holder.date == date, "\(bits)")
            #expect(holder.dateOpt == date, "\(bits)")
            #expect(holder.dates.first == date, "\(bits)")
            #expect(holder.dateSet.first == date, "\(bits)")
            #expect(holder.dateMap["d"] == date, "\(bits)")
            #expect(holder.mixed == .date(date), "\(bits)")
        }
    }

    @Test("A date read back is found by a query on the date written")
    func queriesFindTheDateWritten() throws {
        let realm = try realm()
        let date = Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_78)
        try realm.write { realm.add(DateHolder(value: ["date": date])) }
        let stored = try #require(realm.objects(DateHolder.self).first)
        #expect(realm.objects(DateHolder.self).filter("date == %@", stored.date).count == 1)
        #expect(realm.objects(DateHolder.self).where { $0.date == date }.count == 1)
    }

    @Test("Nearer 2001-01-01 than 97 days, a date keeps its nanoseconds, rounded, as Realm keeps them")
    func subNanosecondPrecisionNearTheReferenceDate() throws {
        let realm = try realm()
        let date = Date(timeIntervalSinceReferenceDate: 0.001_234_567_891_2)
        try realm.write { realm.add(DateHolder(value: ["date": date])) }
        let stored = try #require(realm.objects(DateHolder.self).first).date
        #expect(stored == Date(timeIntervalSinceReferenceDate: 0.001_234_568))
        #expect(abs(stored.timeIntervalSince(date)) <= 0.5e-9)
    }
}
