import Foundation
import RealmSwift
import Testing

private final class Words: Object {
    @Persisted var words: List<String>
    @Persisted var optionalCounts: MutableSet<Int?>
}

/// Sections any collection by a key its elements give, in generic code as Realm Swift's own tests
/// and applications write it: no constraint beyond `RealmCollection`.
private func sectionKeysAndSizes<C: RealmCollection, Key: _Persistable & Hashable>(
    _ collection: C, ascending: Bool, by key: @escaping (C.Element) -> Key
) -> [(Key, Int)] {
    collection.sectioned(by: key, ascending: ascending).map { ($0.key, $0.count) }
}

@Suite("SectionedResults over primitives and optionals")
struct SectionedPrimitivesTests {
    @Test("a list of strings and a set of optionals section in generic code, sorted by their values")
    func primitivesAndOptionals() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: UUID().uuidString, objectTypes: [Words.self]))
        let holder = Words()
        holder.words.append(objectsIn: ["bird", "ant", "bee", "cat"])
        holder.optionalCounts.insert(objectsIn: [3, nil, 12, 1])
        try realm.write { realm.add(holder) }

        let byInitial = sectionKeysAndSizes(holder.words, ascending: true) { String($0.prefix(1)) }
        #expect(byInitial.map(\.0) == ["a", "b", "c"])
        #expect(byInitial.map(\.1) == [1, 2, 1])

        let bySize = sectionKeysAndSizes(holder.optionalCounts, ascending: false) { ($0 ?? 0) >= 10 ? "big" : "small" }
        #expect(bySize.map(\.0) == ["big", "small"])
        #expect(bySize.map(\.1) == [1, 3])
        let smallest = holder.optionalCounts.sectioned(by: { $0 == nil }, ascending: true)
        #expect(smallest[0].key == true)
        #expect(smallest[0][0] == nil)
    }
}

private final class Bird: Object {
    @Persisted var name: String
}

private final class BirdInitial: Projection<Bird> {
    @Projected(\Bird.name) var title: String
}

@Suite("SectionedResults over projections")
struct SectionedProjectionsTests {
    @Test("projections section by a projected key path or a block, sorted on their root objects")
    func projections() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: UUID().uuidString, objectTypes: [Bird.self]))
        try realm.write {
            for name in ["crow", "auk", "crane", "avocet", "bittern"] { realm.add(Bird(value: ["name": name])) }
        }
        let views = realm.objects(BirdInitial.self)
        let byTitle = views.sectioned(by: \.title, ascending: false)
        #expect(byTitle.map(\.key) == ["crow", "crane", "bittern", "avocet", "auk"])
        let byInitial = views.sectioned(by: { String($0.title.prefix(1)) },
                                        sortDescriptors: [SortDescriptor(keyPath: "name")])
        #expect(byInitial.map(\.key) == ["a", "b", "c"])
        #expect(byInitial[0].map(\.title) == ["auk", "avocet"])
    }
}
