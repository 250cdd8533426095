import Foundation
import Strata
import Testing

final class UCItem: Object {
    @Persisted var name: String
    @Persisted var count: Int
    @Persisted var optionalCount: Int?
    @Persisted var weight: Double
    @Persisted var price: Decimal128
    @Persisted var made: Date
    @Persisted(originProperty: "items") var owners: LinkingObjects<UCHolder>
}

final class UCHolder: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var items: List<UCItem>
    @Persisted var itemSet: MutableSet<UCItem>
    @Persisted var numbers: List<Int>
    @Persisted var words: MutableSet<String>
}

/// `index(of:)`, `index(matching:)` and aggregates on managed and unmanaged collections, as Realm
/// Swift computes them: objects found by table and key, unmanaged collections read in memory.
@Suite("Collections: index(of:) by object identity, and unmanaged index(matching:) and aggregates in memory")
struct CollectionIndexAndAggregateTests {
    static let epoch = Date(timeIntervalSince1970: 1_000_000)

    static func item(_ name: String, _ count: Int, _ optional: Int?, _ weight: Double, _ price: Double,
                     _ offset: Double) -> UCItem {
        UCItem(value: ["name": name, "count": count, "optionalCount": optional.map { $0 as Any } ?? NSNull(), "weight": weight,
                       "price": Decimal128(price), "made": epoch.addingTimeInterval(offset)])
    }

    static func holder() -> UCHolder {
        let holder = UCHolder()
        holder.items.append(objectsIn: [item("a", 3, nil, 1.5, 1.25, 30), item("b", 1, 7, 4.5, 2.5, 10),
                                        item("c", 2, 5, 3.0, 0.25, 20)])
        holder.itemSet.insert(objectsIn: holder.items)
        holder.numbers.append(objectsIn: [5, 6, 7, 8])
        holder.words.insert(objectsIn: ["x", "y"])
        return holder
    }

    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "unmanaged-collections-\(UUID())",
                                                     objectTypes: [UCItem.self, UCHolder.self]))
    }

    @Test("index(of:) finds a managed object through another accessor in a List, Results, LinkingObjects and AnyRealmCollection")
    func indexOfManagedObject() throws {
        let realm = try Self.realm()
        let holder = Self.holder()
        try realm.write { realm.add(holder) }
        let other = try #require(realm.objects(UCItem.self).filter("name == 'c'").first)
        #expect(holder.items.index(of: other) == 2)
        #expect(AnyRealmCollection(holder.items).index(of: other) == 2)
        #expect(realm.objects(UCItem.self).index(of: other) == 2)
        #expect(holder.itemSet.index(of: other) != nil)
        let owner = try #require(realm.object(ofType: UCHolder.self, forPrimaryKey: 0))
        #expect(other.owners.index(of: owner) == 0)
        #expect(holder.items.index(of: UCItem()) == nil)
    }

    @Test("index(of:) on an unmanaged List finds the instance it holds")
    func indexOfUnmanaged() {
        let holder = Self.holder()
        #expect(holder.items.index(of: holder.items[1]) == 1)
        #expect(holder.items.index(of: Self.item("b", 1, 7, 4.5, 2.5, 10)) == nil)
        #expect(holder.numbers.index(of: 7) == 2)
    }

    @Test("index(matching:) on an unmanaged collection of primitives evaluates the predicate in memory")
    func indexMatchingUnmanagedPrimitives() {
        let holder = Self.holder()
        #expect(holder.numbers.index(matching: "self == 7") == 2)
        #expect(holder.numbers.index(matching: "self > %d", 5) == 1)
        #expect(holder.numbers.index(matching: "self == 9") == nil)
        #expect(holder.words.index(matching: "self == 'y'") != nil)
    }

    @Test("index(matching:) on an unmanaged collection of objects traps with a message saying what to do")
    func indexMatchingUnmanagedObjectsTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Self.holder().items.index(matching: "name == 'b'")
        }
    }

    @Test("aggregates of an unmanaged List or MutableSet of objects are computed in memory, by name and by key path")
    func unmanagedAggregates() {
        let holder = Self.holder()
        for items in [AnyRealmCollection(holder.items), AnyRealmCollection(holder.itemSet)] {
            #expect(items.min(ofProperty: "count") as Int? == 1)
            #expect(items.max(ofProperty: "count") as Int? == 3)
            #expect(items.sum(ofProperty: "count") as Int == 6)
            #expect(items.average(ofProperty: "count") as Double? == 2.0)
            #expect(items.min(of: \.weight) == 1.5)
            #expect(items.max(of: \.weight) == 4.5)
            #expect(items.sum(of: \.weight) == 9.0)
            #expect(items.average(ofProperty: "weight") as Double? == 3.0)
            #expect(items.min(of: \.price) == Decimal128(0.25))
            #expect(items.sum(of: \.price) == Decimal128(4))
            #expect(items.average(ofProperty: "price") as Decimal128? == Decimal128(4) / Decimal128(3))
            #expect(items.min(of: \.made) == Self.epoch.addingTimeInterval(10))
            #expect(items.max(of: \.made) == Self.epoch.addingTimeInterval(30))
            #expect(items.min(of: \.optionalCount) == 5)
            #expect(items.max(ofProperty: "optionalCount") as Int? == 7)
            #expect(items.sum(of: \.optionalCount) == 12)
            #expect(items.average(ofProperty: "optionalCount") as Double? == 6.0)
        }
    }

    @Test("aggregates of an empty unmanaged List are nil, and 0 for sum, as in Realm")
    func emptyUnmanagedAggregates() {
        let items = UCHolder().items
        #expect(items.min(ofProperty: "count") as Int? == nil)
        #expect(items.max(of: \.made) == nil)
        #expect(items.average(ofProperty: "weight") as Double? == nil)
        #expect(items.sum(ofProperty: "count") as Int == 0)
        #expect(items.sum(of: \.price) == Decimal128(0))
    }

    @Test("aggregates of an unmanaged List match the same List's once managed")
    func unmanagedMatchesManaged() throws {
        let holder = Self.holder()
        let unmanaged = (holder.items.sum(of: \.count), holder.items.average(ofProperty: "weight") as Double?,
                         holder.items.min(of: \.price), holder.items.max(of: \.made))
        let realm = try Self.realm()
        try realm.write { realm.add(holder) }
        #expect(holder.items.realm != nil)
        let managed = (holder.items.sum(of: \.count), holder.items.average(ofProperty: "weight") as Double?,
                       holder.items.min(of: \.price), holder.items.max(of: \.made))
        #expect(unmanaged == managed)
    }

    @Test("min, max, sum and average of an unmanaged Map of primitives are computed in memory, as Realm's")
    func unmanagedMapAggregates() {
        let map = Map<String, Int>()
        #expect(map.min() == nil && map.max() == nil && map.sum() == 0 && map.average() as Double? == nil)
        for (key, value) in [("a", 5), ("b", 6), ("c", 7), ("d", 8)] { map[key] = value }
        #expect(map.min() == 5 && map.max() == 8 && map.sum() == 26 && map.average() as Double? == 6.5)
        let optional = Map<String, Double?>()
        optional["x"] = 1.5
        optional["y"] = nil
        #expect(optional.sum() == 1.5 && optional.average() as Double? == 1.5)
    }
}
