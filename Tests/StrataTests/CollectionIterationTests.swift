import Foundation
@testable import Strata
import Testing

final class IterToy: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var owner: IterChild?
}

final class IterSticker: EmbeddedObject {
    @Persisted var label: String
}

final class IterChild: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var toys: List<IterToy>
    @Persisted var scores: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var stickers: List<IterSticker>
    @Persisted var toySet: MutableSet<IterToy>
    @Persisted(originProperty: "owner") var ownedToys: LinkingObjects<IterToy>
}

@Suite("List, MutableSet and LinkingObjects iteration")
struct CollectionIterationTests {
    /// An in-memory Realm holding one child (id 1) with ten toys (ids 1...10, names "t<id>", all
    /// owned by the child) in its list in the order 7, 3, 3, 10, 1, …, and values in its other
    /// collections.
    private func realmWithChild() throws -> (Realm, IterChild) {
        let realm = try Realm(configuration: Realm.Configuration(
            inMemoryIdentifier: UUID().uuidString, objectTypes: [IterToy.self, IterChild.self, IterSticker.self]))
        let child = IterChild(value: ["id": 1])
        try realm.write {
            realm.add(child)
            let toys = (1...10).map { id in realm.create(IterToy.self, value: ["id": id, "name": "t\(id)", "owner": child]) }
            for id in [7, 3, 3, 10, 1, 2, 9] { child.toys.append(toys[id - 1]) }
            child.toySet.insert(objectsIn: [toys[4], toys[0], toys[8]])
            child.scores.append(objectsIn: [5, -1, 5, 40])
            child.tags.insert(objectsIn: ["b", "a", "c"])
            child.stickers.append(objectsIn: ["x", "y"].map { IterSticker(value: ["label": $0]) })
        }
        return (realm, child)
    }

    @Test("a loop gives each collection's elements in its order, duplicates included, as its subscripts do")
    func loopsMatchSubscripts() throws {
        let (_, child) = try realmWithChild()
        var toys: [String] = []
        for toy in child.toys { toys.append(toy.name) }
        #expect(toys == ["t7", "t3", "t3", "t10", "t1", "t2", "t9"])
        #expect(toys == child.toys.indices.map { child.toys[$0].name })
        #expect(Array(child.toySet).map(\.id) == child.toySet.indices.map { child.toySet[$0].id })
        #expect(Set(child.toySet.map(\.id)) == [1, 5, 9])
        #expect(Array(child.scores) == [5, -1, 5, 40])
        #expect(Array(child.tags).sorted() == ["a", "b", "c"])
        #expect(Array(child.tags) == child.tags.indices.map { child.tags[$0] })
        #expect(Array(child.stickers).map(\.label) == ["x", "y"])
        #expect(Array(child.ownedToys).map(\.id) == Array(1...10))
        #expect(Array(child.ownedToys).map(\.id) == child.ownedToys.indices.map { child.ownedToys[$0].id })
    }

    @Test("an AnyRealmCollection loop gives its base's elements, a snapshot as the base's own loop is")
    func typeErasedLoops() throws {
        let (realm, child) = try realmWithChild()
        let toys = AnyRealmCollection(child.toys)
        let owned = AnyRealmCollection(realm.objects(IterToy.self).where { $0.owner.id == 1 })
        #expect(toys.map(\.id) == [7, 3, 3, 10, 1, 2, 9])
        var visited: [Int] = []
        try realm.write {
            for toy in toys {
                visited.append(toy.id)
                child.toys.append(toy)
            }
        }
        #expect(visited == [7, 3, 3, 10, 1, 2, 9])
        #expect(Array(owned).map(\.id) == Array(1...10))
    }

    @Test("elements a list loop keeps stay their objects, one accessor each, duplicates included")
    func keptElementsStayTheirObjects() throws {
        let (_, child) = try realmWithChild()
        let kept = Array(child.toys)
        #expect(Set(kept.map(ObjectIdentifier.init)).count == kept.count)
        #expect(kept.map(\.id) == [7, 3, 3, 10, 1, 2, 9])
        #expect(kept.map(\.name) == ["t7", "t3", "t3", "t10", "t1", "t2", "t9"])
    }

    @Test("a loop that changes its collection inside a write visits the elements it started with (Realm's snapshot iteration)")
    func iteratesASnapshot() throws {
        let (realm, child) = try realmWithChild()
        var toys: [Int] = [], scores: [Int] = [], owned: [Int] = []
        try realm.write {
            for toy in child.toys {
                toys.append(toy.id)
                child.toys.remove(at: 0)
                child.toys.append(toy)
                child.toys.append(toy)
            }
            for score in child.scores {
                scores.append(score)
                child.scores.insert(score * 10, at: 0)
            }
            for toy in child.ownedToys {
                owned.append(toy.id)
                realm.add(IterToy(value: ["id": 100 + toy.id, "name": "new", "owner": child]))
            }
        }
        #expect(toys == [7, 3, 3, 10, 1, 2, 9])
        #expect(child.toys.count == 14)
        #expect(scores == [5, -1, 5, 40])
        #expect(Array(child.scores) == [400, 50, -10, 50, 5, -1, 5, 40])
        #expect(owned == Array(1...10))
        #expect(child.ownedToys.count == 20)
    }

    @Test("objects met later in a list loop read changes made earlier in it")
    func laterElementsSeeEarlierChanges() throws {
        let (realm, child) = try realmWithChild()
        var seen: [String] = []
        try realm.write {
            for toy in child.toys {
                seen.append(toy.name)
                for other in child.toys where other.id != toy.id { other.name = "after \(toy.id)" }
            }
        }
        #expect(seen == ["t7", "after 7", "after 7", "after 3", "after 10", "after 1", "after 2"])
    }

    @Test("LinkingObjects' count and subscripts follow every change, inside a write and after it")
    func linkingObjectsFollowChanges() throws {
        let (realm, child) = try realmWithChild()
        let owned = child.ownedToys
        #expect(owned.count == 10 && owned[9].id == 10)
        realm.beginWrite()
        realm.add(IterToy(value: ["id": 11, "name": "t11", "owner": child]))
        #expect(owned.count == 11 && owned[10].id == 11)
        realm.delete(realm.object(ofType: IterToy.self, forPrimaryKey: 1)!)
        #expect(owned.count == 10 && owned[0].id == 2)
        realm.object(ofType: IterToy.self, forPrimaryKey: 5)!.owner = nil
        #expect(owned.map(\.id) == [2, 3, 4, 6, 7, 8, 9, 10, 11])
        realm.cancelWrite()
        #expect(owned.count == 10 && owned[0].id == 1 && owned[4].id == 5)
        let frozen = owned.freeze()
        try realm.write { realm.add(IterToy(value: ["id": 12, "name": "t12", "owner": child])) }
        #expect(owned.count == 11 && frozen.count == 10 && frozen[9].id == 10)
    }

    @Test("unmanaged collections iterate their elements")
    func unmanagedCollections() {
        let child = IterChild()
        child.scores.append(objectsIn: [3, 1, 2])
        child.tags.insert(objectsIn: ["q", "p"])
        child.toys.append(IterToy(value: ["id": 4, "name": "u"]))
        #expect(Array(child.scores) == [3, 1, 2])
        #expect(Set(child.tags) == ["p", "q"])
        #expect(child.toys.map(\.name) == ["u"])
        #expect(Array(child.ownedToys).isEmpty)
    }
}
