import Foundation
import RealmSwift
import Testing

private enum Level: Int, PersistableEnum {
    case low = 1, middle = 5, high = 9
}

private final class Measurements: Object {
    @Persisted var counts: List<Int>
    @Persisted var optionalCounts: List<Int?>
    @Persisted var readings: MutableSet<Double>
    @Persisted var days: List<Date>
    @Persisted var amounts: List<Decimal128>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var names: List<String>
    @Persisted var levels: List<Level>
    @Persisted var totals: Map<String, Int?>
}

// Generic code written against Realm Swift's capability protocols, as applications and Realm's
// own test suites write it.

private func total<C: RealmCollection>(_ values: C) -> C.Element where C.Element.PersistedType: AddableType {
    values.sum()
}

private func mean<C: RealmCollection>(_ values: C) -> Double? where C.Element.PersistedType: AddableType {
    values.average()
}

private func range<C: RealmCollection>(_ values: C) -> (C.Element?, C.Element?)
where C.Element.PersistedType: MinMaxType {
    (values.min(), values.max())
}

private func ascending<C: RealmCollection>(_ values: C) -> [C.Element] where C.Element.PersistedType: SortableType {
    Array(values.sorted(ascending: true))
}

private func nilCount<T: _RealmCollectionValueInsideOptional>(_ values: List<T?>) -> Int {
    values.reduce(0) { count, value in value == nil ? count + 1 : count }
}

private func isDiscoverable<T: _RealmSchemaDiscoverable>(_: T.Type) -> Bool { true }

private func storedType<T: _Persistable>(of _: T.Type) -> ObjectIdentifier { ObjectIdentifier(T.PersistedType.self) }

@Suite("Realm Swift's capability protocols in generic code")
struct CapabilityProtocolTests {
    private func measurements(in realm: Realm) throws -> Measurements {
        let day = Date(timeIntervalSince1970: 86_400)
        let values = Measurements()
        values.counts.append(objectsIn: [3, 1, 8])
        values.optionalCounts.append(objectsIn: [4, nil, 2])
        values.readings.insert(objectsIn: [1.5, 2.5])
        values.days.append(objectsIn: [day, day.addingTimeInterval(-60)])
        values.amounts.append(objectsIn: [Decimal128(1.25), Decimal128(2.5)])
        values.mixed.append(objectsIn: [.int(2), .double(0.5)])
        values.names.append(objectsIn: ["b", "a"])
        values.levels.append(objectsIn: [.high, .low])
        values.totals["a"] = 7
        values.totals.updateValue(nil, forKey: "b")
        values.totals["c"] = -3
        try realm.write { realm.add(values) }
        return values
    }

    @Test("sum, average, min and max compile against AddableType and MinMaxType and agree with Realm")
    func aggregatesOverPrimitives() throws {
        let realm = try measurementsRealm()
        let values = try measurements(in: realm)
        #expect(total(values.counts) == 12)
        #expect(total(values.optionalCounts) == 6)
        #expect(total(values.readings) == 4)
        #expect(total(values.amounts) == Decimal128(3.75))
        #expect(mean(values.counts) == 4)
        #expect(mean(values.optionalCounts) == 3)
        #expect(range(values.counts) == (1, 8))
        #expect(range(values.optionalCounts) == (2, 4))
        #expect(range(values.days) == (Date(timeIntervalSince1970: 86_340), Date(timeIntervalSince1970: 86_400)))
        let mixedSum = total(values.mixed)
        #expect(mixedSum == .double(2.5))
        let decimalAverage: Decimal128? = values.amounts.average()
        #expect(decimalAverage == Decimal128(1.875))
    }

    @Test("a map of primitives sums, averages, finds its extremes and sorts its values")
    func mapAggregates() throws {
        let realm = try measurementsRealm()
        let totals = try measurements(in: realm).totals
        #expect(totals.sum() == 4)
        let average: Double? = totals.average()
        #expect(average == 2)
        #expect(totals.min() == -3)
        #expect(totals.max() == 7)
        #expect(Array(totals.sorted(ascending: false)) == [7, -3, nil])
    }

    @Test("aggregates of an empty collection: a zero sum, no average, minimum or maximum")
    func aggregatesOfNothing() {
        let unmanaged = Measurements()
        #expect(total(unmanaged.counts) == 0)
        #expect(mean(unmanaged.counts) == nil)
        #expect(range(unmanaged.optionalCounts) == (nil, nil))
    }

    @Test("sorted(ascending:) compiles against SortableType, for optionals and enums through their persisted type")
    func sortingPrimitives() throws {
        let realm = try measurementsRealm()
        let values = try measurements(in: realm)
        #expect(ascending(values.names) == ["a", "b"])
        #expect(ascending(values.optionalCounts) == [nil, 2, 4])
        #expect(ascending(values.levels) == [.low, .high])
    }

    @Test("PersistedType is Self for stored types, the raw value for enums and the wrapped type's for optionals")
    func persistedTypes() {
        #expect(storedType(of: Int.self) == ObjectIdentifier(Int.self))
        #expect(storedType(of: Level.self) == ObjectIdentifier(Int.self))
        #expect(storedType(of: Level?.self) == ObjectIdentifier(Int?.self))
        #expect(storedType(of: List<String>.self) == ObjectIdentifier(List<String>.self))
    }

    @Test("_RealmCollectionValueInsideOptional and _RealmSchemaDiscoverable constrain generic code")
    func underscoredConstraints() throws {
        let realm = try measurementsRealm()
        let values = try measurements(in: realm)
        #expect(nilCount(values.optionalCounts) == 1)
        #expect(isDiscoverable(Int?.self))
        #expect(isDiscoverable(List<Date>.self))
        #expect(isDiscoverable(Level.self))
        #expect(isDiscoverable(Measurements.self))
    }
}

/// An in-memory Realm of `Measurements` only: the classes other suites discover (some invalid on
/// purpose) must not enter its schema, whatever order the suites run in.
private func measurementsRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: UUID().uuidString, objectTypes: [Measurements.self]))
}
