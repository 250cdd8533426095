import Foundation
import Strata
import Testing

final class AUTree: EmbeddedObject {
    @Persisted var value = 0
    @Persisted var child: AUTree?
    @Persisted var children: List<AUTree>
}

final class AUParent: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var tree: AUTree?
    @Persisted var trees: List<AUTree>
}

final class AUNode: Object {
    @Persisted var name = ""
    @Persisted var next: AUNode?
    @Persisted var nodes: List<AUNode>
}

@Suite("add(_:update:) and embedded objects, and what an added object keeps")
struct AddUpdateEmbeddedTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "add-update-embedded-\(UUID())",
                                                     objectTypes: [AUParent.self, AUTree.self, AUNode.self]))
    }

    /// A parent whose tree, child, children and list hold `first`, `first + 1`, … in that order.
    private func parent(values first: Int, children: Int = 2, trees: Int = 2) -> (AUParent, [AUTree]) {
        var made: [AUTree] = []
        func tree() -> AUTree {
            let tree = AUTree(value: ["value": first + made.count])
            made.append(tree)
            return tree
        }
        let parent = AUParent(value: ["id": 1])
        parent.tree = tree()
        parent.tree!.child = tree()
        for _ in 0..<children { parent.tree!.children.append(tree()) }
        for _ in 0..<trees { parent.trees.append(tree()) }
        return (parent, made)
    }

    @Test(".modified updates the embedded objects in place: the old accessors read the new values")
    func modifiedUpdatesInPlace() throws {
        let realm = try realm()
        let (first, old) = parent(values: 0)
        let (second, new) = parent(values: 6)
        try realm.write {
            realm.add(first)
            realm.add(second, update: .modified)
        }
        #expect(old.map(\.value) == [6, 7, 8, 9, 10, 11])
        #expect(new.allSatisfy { $0.realm != nil && !$0.isInvalidated })
        #expect(new.map(\.value) == [6, 7, 8, 9, 10, 11])
        #expect(first.tree?.child?.value == 7 && first.trees.map(\.value) == [10, 11])
        #expect(realm.objects(AUParent.self).count == 1)
    }

    @Test(".all replaces the embedded objects: the old ones are deleted")
    func allReplaces() throws {
        let realm = try realm()
        let (first, old) = parent(values: 0)
        let (second, new) = parent(values: 6)
        try realm.write {
            realm.add(first)
            realm.add(second, update: .all)
        }
        #expect(old.allSatisfy { $0.isInvalidated })
        #expect(new.map(\.value) == [6, 7, 8, 9, 10, 11])
        #expect(first.tree?.children.map(\.value) == [8, 9])
    }

    @Test(".modified with a longer or shorter list updates the common elements and adds or removes the rest")
    func listsOfOtherLengths() throws {
        let realm = try realm()
        let (first, old) = parent(values: 0, children: 1, trees: 3)
        try realm.write { realm.add(first) }
        let (second, _) = parent(values: 10, children: 3, trees: 1)
        try realm.write { realm.add(second, update: .modified) }
        #expect(first.tree?.children.map(\.value) == [12, 13, 14])
        #expect(first.trees.map(\.value) == [15])
        #expect(old[2].value == 12, "the first child was updated in place")
        #expect(old[3].value == 15 && old[4].isInvalidated && old[5].isInvalidated)
    }

    @Test("an added object lets go of the unmanaged objects it linked to, so a cycle of them is freed")
    func addedCycleIsFreed() throws {
        let realm = try realm()
        weak var weakFirst: AUNode?
        weak var weakSecond: AUNode?
        try { () throws in
            let first = AUNode(value: ["name": "a"])
            let second = AUNode(value: ["name": "b", "next": first, "nodes": [first]])
            first.next = second
            first.nodes.append(second)
            weakFirst = first
            weakSecond = second
            try realm.write { realm.add(first) }
            #expect(first.next?.name == "b" && second.nodes.first?.name == "a")
        }()
        #expect(weakFirst == nil && weakSecond == nil)
        let names = realm.objects(AUNode.self).map { "\($0.name)->\($0.next?.name ?? "")" }
        #expect(names.sorted() == ["a->b", "b->a"])
    }
}
