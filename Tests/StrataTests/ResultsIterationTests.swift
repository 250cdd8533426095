import Foundation
@testable import Strata
import Testing

@Suite("Results iteration")
struct ResultsIterationTests {
    private func realm() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                                 objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
        try realm.write {
            for id in 1...20 { realm.add(NoteDog(value: ["id": id, "name": "d\(id)", "age": id % 10])) }
        }
        return realm
    }

    @Test("iteration and Array give the elements in the results' order, as subscripts do")
    func matchesSubscripts() throws {
        let realm = try realm()
        let young = realm.objects(NoteDog.self).where { $0.age < 5 }.sorted(byKeyPath: "name", ascending: false)
        let byIndex = (0..<young.count).map { young[$0].id }
        #expect(Array(young).map(\.id) == byIndex)
        var iterated: [Int] = []
        for dog in young { iterated.append(dog.id) }
        #expect(iterated == byIndex && byIndex.count == 10)
    }

    @Test("a loop that changes what the query selects visits every element it started with, once (Realm's snapshot iteration)")
    func iteratesASnapshot() throws {
        let realm = try realm()
        let young = realm.objects(NoteDog.self).where { $0.age < 5 }
        let before = Set(young.map(\.id))
        var visited: [Int] = []
        try realm.write {
            for dog in young {
                visited.append(dog.id)
                dog.age = 9   // leaves the results as the loop runs
            }
        }
        #expect(visited.count == before.count && Set(visited) == before)
        #expect(young.isEmpty)
    }
}
