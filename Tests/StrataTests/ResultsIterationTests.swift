import Foundation
@testable import Strata
import StrataTestSupport
import Testing

@Suite("Results iteration")
struct ResultsIterationTests {
    /// An in-memory Realm with `count` dogs: ids from 1, names "d<id>", ages `age(id)`.
    private func realm(dogs count: Int = 20, age: (Int) -> Int = { $0 % 10 }) throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                                 objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
        try realm.write {
            for id in 1...count { realm.add(NoteDog(value: ["id": id, "name": "d\(id)", "age": age(id)])) }
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

    @Test("objects met later in a loop read the changes made earlier in it (rows are read ahead in batches)")
    func laterObjectsSeeEarlierChanges() throws {
        let realm = try realm()
        let dogs = realm.objects(NoteDog.self).sorted(byKeyPath: "id")
        var seen: [String] = []
        try realm.write {
            for dog in dogs {
                seen.append(dog.name)
                // Renames the object the loop reaches next, through another accessor.
                realm.object(ofType: NoteDog.self, forPrimaryKey: dog.id + 1)?.name = "renamed \(dog.id + 1)"
            }
        }
        #expect(seen == ["d1"] + (2...20).map { "renamed \($0)" })
    }

    @Test("a walk through every object reads changes made earlier in it, across batches, when other tables change too")
    func walkSeesEarlierChangesAcrossBatches() throws {
        let realm = try realm(dogs: 150, age: { _ in 1 })
        var seen: [String] = []
        try realm.write {
            for dog in realm.objects(NoteDog.self) {
                // Read twice: the accessor keeps the row it was given.
                seen.append(dog.name)
                #expect(dog.name == seen.last)
                realm.object(ofType: NoteDog.self, forPrimaryKey: dog.id + 1)?.name = "renamed \(dog.id + 1)"
                // A write to another table: the Realm moves on while the dogs' table does not.
                if dog.id % 10 == 0 { realm.add(NotePerson(value: ["id": dog.id, "name": "p"])) }
            }
        }
        #expect(seen == ["d1"] + (2...150).map { "renamed \($0)" })
        // Outside a write: a loop after another table changed reads every row.
        try realm.write { realm.add(NotePerson(value: ["id": 1_000, "name": "q"])) }
        #expect(realm.objects(NoteDog.self).map(\.name) == ["d1"] + (2...150).map { "renamed \($0)" })
    }

    @Test("a filtered, sorted loop reads changes made earlier in it, though the query kept the rows it scanned")
    func scannedRowsGiveWayToChanges() throws {
        let realm = try realm()
        let dogs = realm.objects(NoteDog.self).where { $0.id > 0 }.sorted(byKeyPath: "id", ascending: false)
        var seen: [String] = []
        try realm.write {
            for dog in dogs {
                seen.append(dog.name)
                realm.object(ofType: NoteDog.self, forPrimaryKey: dog.id - 1)?.name = "renamed \(dog.id - 1)"
            }
        }
        #expect(seen == ["d20"] + (1...19).reversed().map { "renamed \($0)" })
        // Evaluated (rows kept), then changed outside any loop: the next reads see the change.
        let young = realm.objects(NoteDog.self).where { $0.age < 5 }.sorted(byKeyPath: "id")
        #expect(young.count == 10)
        try realm.write { for dog in realm.objects(NoteDog.self) { dog.name = "again \(dog.id)" } }
        #expect(young.map(\.name) == young.map { "again \($0.id)" } && young.first?.name == "again 1")
    }

    @Test("deleting each object while iterating all of them in a write visits every object once, across batches")
    func deleteWhileIterating() throws {
        let realm = try realm(dogs: 150, age: { _ in 1 })
        var visited: [Int] = []
        try realm.write {
            for dog in realm.objects(NoteDog.self) {
                visited.append(dog.id)
                realm.delete(dog)
                // Objects added during the loop are not part of what it iterates.
                if dog.isInvalidated, visited.count % 50 == 0 {
                    realm.add(NoteDog(value: ["id": 1_000 + visited.count, "name": "new", "age": 2]))
                }
            }
        }
        #expect(visited == Array(1...150))
        #expect(realm.objects(NoteDog.self).map(\.id) == [1_050, 1_100, 1_150])
    }

    @Test("a loop whose rows were read ahead still reads other threads' commits after a refresh")
    func batchesFollowRefresh() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 1...200 { realm.add(NoteDog(value: ["id": id, "name": "d\(id)", "age": 1])) }
        }
        var ages: [Int] = []
        for dog in realm.objects(NoteDog.self) {
            ages.append(dog.age)
            if dog.id == 10 {
                let failures = onAnotherThread {
                    let other = try Realm(configuration: configuration)
                    try other.write { for dog in other.objects(NoteDog.self) { dog.age = 2 } }
                }
                #expect(failures.isEmpty)
                realm.refresh()
            }
        }
        #expect(ages == Array(repeating: 1, count: 10) + Array(repeating: 2, count: 190))
    }
}

@Suite("Managed property row cache")
struct RowCacheTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                     objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self]))
    }

    @Test("two accessors of one object see each other's writes at once, and a cancelled write's values go away")
    func accessorsShareChanges() throws {
        let realm = try realm()
        try realm.write { realm.add(NoteDog(value: ["id": 1, "name": "Rex", "age": 3])) }
        let first = realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!
        let second = realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!
        #expect(first.age == 3 && second.age == 3)
        realm.beginWrite()
        for age in 4...50 {
            first.age = age
            #expect(second.age == age && first.age == age)
        }
        second.name = "Max"
        #expect(first.name == "Max")
        realm.cancelWrite()
        #expect(first.age == 3 && second.name == "Rex")
    }

    @Test("a held object reads another Realm instance's commit on the same thread and a frozen copy keeps its value")
    func heldObjectFollowsCommits() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self])
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(NoteDog(value: ["id": 1, "name": "Rex", "age": 3])) }
        let dog = realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!
        let frozen = dog.freeze()
        #expect(dog.age == 3 && frozen.age == 3)
        let again = try Realm(configuration: configuration)
        try again.write { again.object(ofType: NoteDog.self, forPrimaryKey: 1)!.age = 7 }
        #expect(dog.age == 7 && frozen.age == 3)
    }
}
