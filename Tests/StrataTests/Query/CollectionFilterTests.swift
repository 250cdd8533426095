import Foundation
import Strata
import Testing

final class CFToy: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var price: Int
}

final class CFBox: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var numbers: List<Int>
    @Persisted var optionalNumbers: List<Int?>
    @Persisted var words: MutableSet<String>
    @Persisted var labels: List<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var toys: Map<String, CFToy?>
    @Persisted var toyList: List<CFToy>
    @Persisted var mixed: List<AnyRealmValue>
}

/// Filters, sorts and `IN` on collections of primitives and on maps: the predicate applies
/// (before, it was ignored and every element came back).
@Suite("Collection filters: primitives and maps apply the predicate and the sort")
struct CollectionFilterTests {
    static func makeBox() throws -> (Realm, CFBox) {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: "collection-filter-\(UUID())", objectTypes: [CFBox.self, CFToy.self]))
        let box = CFBox()
        box.id = 1
        box.numbers.append(objectsIn: [7, 2, 9, 5, 6, 2])
        box.optionalNumbers.append(objectsIn: [3, nil, 8])
        box.words.insert(objectsIn: ["apple", "Avocado", "banana", "apricot"])
        box.labels.append(objectsIn: ["x", "y"])
        box.scores["a"] = 1
        box.scores["b"] = 4
        box.scores["c"] = 9
        box.mixed.append(objectsIn: [.int(1), .string("two"), .int(30)])
        try realm.write {
            realm.add(box)
            let toys = [(1, "ball", 5), (2, "kite", 12), (3, "yo-yo", 3)].map { id, name, price in
                realm.create(CFToy.self, value: ["id": id, "name": name, "price": price])
            }
            box.toys["first"] = toys[0]
            box.toys["second"] = toys[1]
            box.toys["third"] = toys[2]
            box.toys["empty"] = nil
            box.toyList.append(objectsIn: toys)
        }
        return (realm, box)
    }

    @Test("List<Int>.filter(\"self > 5\") returns only the elements greater than 5, in list order")
    func listOfInts() throws {
        let (_, box) = try Self.makeBox()
        #expect(Array(box.numbers.filter("self > 5")) == [7, 9, 6])
        #expect(Array(box.numbers.filter("self > %d", 5)) == [7, 9, 6])
        #expect(Array(box.numbers.filter("self IN %@", [2, 9])) == [2, 9, 2])
        #expect(Array(box.numbers.filter("self BETWEEN {5, 7}")) == [7, 5, 6])
        #expect(Array(box.numbers.filter("self > 5").sorted(ascending: true)) == [6, 7, 9])
        #expect(Array(box.numbers.filter("self < 7 SORT(self DESC)")) == [6, 5, 2, 2])
        #expect(Array(box.numbers.filter("self < 7").distinct()) == [2, 5, 6])
        #expect(box.numbers.filter("self == 100").isEmpty)
    }

    @Test("List<Int?> filters compare nil as Realm does")
    func listOfOptionals() throws {
        let (_, box) = try Self.makeBox()
        #expect(Array(box.optionalNumbers.filter("self == nil")) == [nil])
        #expect(Array(box.optionalNumbers.filter("self != nil")) == [3, 8])
        #expect(Array(box.optionalNumbers.filter("self >= 5")) == [8])
    }

    @Test("MutableSet<String>.filter(\"self BEGINSWITH 'a'\") applies the string operator and its options")
    func setOfStrings() throws {
        let (_, box) = try Self.makeBox()
        #expect(Set(box.words.filter("self BEGINSWITH 'a'")) == ["apple", "apricot"])
        #expect(Set(box.words.filter("self BEGINSWITH[c] %@", "a")) == ["apple", "Avocado", "apricot"])
        #expect(Set(box.words.filter("self.@count > 5")) == ["Avocado", "banana", "apricot"])
        #expect(Array(box.words.filter("self CONTAINS 'an'").sorted(ascending: false)) == ["banana"])
    }

    @Test("Map<String, Int>.filter(\"self > 3\") filters and sorts the values")
    func mapOfInts() throws {
        let (_, box) = try Self.makeBox()
        #expect(Array(box.scores.filter("self > 3")) == [4, 9])
        #expect(Array(box.scores.filter("self > 3 SORT(self DESC)")) == [9, 4])
        #expect(Array(box.scores.sorted(byKeyPath: "self", ascending: false)) == [9, 4, 1])
    }

    @Test("Map<String, Object?>.filter applies the predicate and the sort to the linked objects")
    func mapOfObjects() throws {
        let (_, box) = try Self.makeBox()
        #expect(box.toys.filter("price > 4").compactMap { $0?.name }.sorted() == ["ball", "kite"])
        #expect(box.toys.filter("name == %@", "kite").compactMap { $0?.id } == [2])
        #expect(box.toys.sorted(byKeyPath: "price").compactMap { $0?.name } == ["yo-yo", "ball", "kite"])
        #expect(box.toys.where { $0.price < 4 }.compactMap { $0?.name } == ["yo-yo"])
    }

    @Test("List<AnyRealmValue> filters compare each mixed value")
    func listOfMixed() throws {
        let (_, box) = try Self.makeBox()
        #expect(Array(box.mixed.filter("self > 2")) == [.int(30)])
        #expect(Array(box.mixed.filter("self.@type == 'string'")) == [.string("two")])
    }

    @Test("filters on lists of objects apply the predicate and throw for an unknown property instead of trapping")
    func listOfObjects() throws {
        let (_, box) = try Self.makeBox()
        #expect(box.toyList.filter("price >= %d", 5).map(\.id) == [1, 2])
        #expect(box.toyList.index(matching: "name == %@", "yo-yo") == 2)
        #expect(throws: Realm.Error.self) { _ = try box.toyList.filter(validating: "nosuch == 1") }
        #expect(throws: Realm.Error.self) { _ = try box.numbers.filter(validating: "value > 1") }
        #expect(throws: Realm.Error.self) { _ = try box.scores.filter(validating: "self > %d", "x") }
        #expect(box.numbers.index(matching: "self > %d", 8) == 2)
    }

    @Test("'x' IN tags, %@ IN tags and 5 IN scores test membership in a list, set or map as RQL allows")
    func valueInCollection() throws {
        let (realm, _) = try Self.makeBox()
        let boxes = realm.objects(CFBox.self)
        #expect(boxes.filter("7 IN numbers").count == 1)
        #expect(boxes.filter("8 IN numbers").isEmpty)
        #expect(boxes.filter("'apple' IN words").count == 1)
        #expect(boxes.filter("%@ IN words", "cherry").isEmpty)
        #expect(boxes.filter("%@ IN labels", "y").count == 1)
        #expect(boxes.filter("9 IN scores").count == 1)
        #expect(boxes.filter("5 IN scores").isEmpty)
        #expect(boxes.filter("NOT ('x' IN labels)").isEmpty)
    }

    @Test("sorted(by:) takes string literals and distinct(by:) takes Swift key paths, as in Realm Swift")
    func sortDescriptorLiteralsAndKeyPathDistinct() throws {
        let (realm, _) = try Self.makeBox()
        try realm.write {
            realm.create(CFToy.self, value: ["id": 4, "name": "ball", "price": 1])
        }
        let toys = realm.objects(CFToy.self)
        #expect(toys.sorted(by: ["name", "price"]).map(\.id) == [4, 1, 2, 3])
        #expect(toys.sorted(by: ["name", SortDescriptor(keyPath: "price", ascending: false)]).map(\.id) == [1, 4, 2, 3])
        let descriptor: Strata.SortDescriptor = "price"
        #expect(descriptor == SortDescriptor(keyPath: "price", ascending: true))
        #expect(toys.distinct(by: [\CFToy.name]).map(\.id) == [1, 2, 3])
        #expect(toys.sorted(byKeyPath: "price").distinct(by: [\.name]).map(\.id) == [4, 3, 2])
    }
}
