import Testing
@testable import StrataEngine

/// A reference payload, to observe whether a stored value is copied.
private final class TreeTestBox: Sendable {
    let number: Int
    init(_ number: Int) { self.number = number }
}

private struct TreeTestPayload: Sendable {
    var box: TreeTestBox
}

@Suite("SortedTree")
struct SortedTreeTests {
    typealias Tree = SortedTree<Int, Int>

    /// The number of levels of `tree` (1 when its root is a leaf).
    private func height(_ tree: Tree) -> Int {
        var levels = 1
        var node = tree.root
        while !node.isLeaf {
            node = node.children[0]
            levels += 1
        }
        return levels
    }

    /// Compares everything observable about `tree` with `model`, probing rank/index at random keys.
    private func expectMatches(
        _ tree: Tree, _ model: [Int: Int], probes: Int, keySpace: Int, rng: inout SeededRandom,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        tree.checkInvariants()
        let sorted = model.keys.sorted()
        let sortedValues = sorted.map { model[$0]! }
        #expect(tree.count == model.count, sourceLocation: sourceLocation)
        #expect(tree.isEmpty == model.isEmpty, sourceLocation: sourceLocation)
        #expect(tree.keys == sorted, sourceLocation: sourceLocation)

        let iterated = Array(tree)
        #expect(iterated.map(\.key) == sorted, sourceLocation: sourceLocation)
        #expect(iterated.map(\.value) == sortedValues, sourceLocation: sourceLocation)

        var visitedKeys: [Int] = []
        var visitedValues: [Int] = []
        tree.forEach { key, value in
            visitedKeys.append(key)
            visitedValues.append(value)
        }
        #expect(visitedKeys == sorted, sourceLocation: sourceLocation)
        #expect(visitedValues == sortedValues, sourceLocation: sourceLocation)

        #expect(tree.first?.key == sorted.first, sourceLocation: sourceLocation)
        #expect(tree.first?.value == sortedValues.first, sourceLocation: sourceLocation)
        #expect(tree.last?.key == sorted.last, sourceLocation: sourceLocation)
        #expect(tree.last?.value == sortedValues.last, sourceLocation: sourceLocation)

        // Positions at a stride no longer than half a leaf, from a random start, so that every
        // leaf is probed on every check (every position was, but these checks ran 90 times per
        // seed and were most of the suite's time under AddressSanitizer).
        var positionalMismatches = 0
        let step = Swift.max(1, Swift.min(sorted.count / 256, Tree.leafCapacity / 2))
        for position in stride(from: Int.random(in: 0..<step, using: &rng), to: sorted.count, by: step) {
            let key = sorted[position]
            let element = tree.element(at: position)
            if element.key != key || element.value != sortedValues[position] || tree.index(of: key) != position {
                positionalMismatches += 1
            }
        }
        #expect(positionalMismatches == 0, sourceLocation: sourceLocation)

        // Batched lookups: ascending keys with absent ones among them (runs share a leaf), then
        // keys in random order.
        let ascending = Array(stride(from: -2, through: keySpace + 2, by: 3))
        #expect(tree.values(for: ascending) == ascending.map { model[$0] }, sourceLocation: sourceLocation)
        let scattered = (0..<probes).map { _ in Int.random(in: -2...(keySpace + 2), using: &rng) }
        #expect(tree.values(for: scattered) == scattered.map { model[$0] }, sourceLocation: sourceLocation)

        // Batches of keys: by position, and after a key (present or not).
        for _ in 0..<Swift.min(probes, 20) {
            let position = Int.random(in: 0...sorted.count, using: &rng)
            let count = Int.random(in: 0...70, using: &rng)
            let byPosition = Array(sorted[position..<Swift.min(position + count, sorted.count)])
            #expect(tree.keys(from: position, count: count) == byPosition, sourceLocation: sourceLocation)
            let bound = Int.random(in: -2...(keySpace + 2), using: &rng)
            let afterBound = Array(sorted.lazy.filter { $0 > bound }.prefix(count))
            #expect(tree.keys(after: bound, count: count) == afterBound, sourceLocation: sourceLocation)
        }

        for _ in 0..<probes {
            let probe = Int.random(in: -2...(keySpace + 2), using: &rng)
            let expectedRank = sorted.firstIndex { $0 >= probe } ?? sorted.count
            #expect(tree.rank(of: probe) == expectedRank, "rank(of: \(probe))", sourceLocation: sourceLocation)
            let expectedIndex = model[probe] == nil ? nil : expectedRank
            #expect(tree.index(of: probe) == expectedIndex, "index(of: \(probe))", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "Random inserts, updates, removals and in-place modifications agree with a Dictionary model",
        arguments: [UInt64(0x5EED_0000_C0FF_EE01), UInt64.random(in: .min ... .max)]
    )
    func randomizedOperationsMatchDictionary(seed: UInt64) {
        print("SortedTree randomized test seed: 0x\(String(seed, radix: 16))")
        var rng = SeededRandom(seed: seed)
        var tree = Tree()
        var model: [Int: Int] = [:]
        let keySpace = 8_000
        var maxHeight = 1

        for step in 0..<20_000 {
            let key = Int.random(in: 0..<keySpace, using: &rng)
            let growing = step < 12_000
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < (growing ? 60 : 15) {
                let value = Int.random(in: -1_000_000...1_000_000, using: &rng)
                #expect(tree.updateValue(value, forKey: key) == model.updateValue(value, forKey: key), "update \(key)")
            } else if roll < 75 {
                #expect(tree.removeValue(forKey: key) == model.removeValue(forKey: key), "remove \(key)")
            } else if roll < 90 {
                let delta = Int.random(in: 1...1_000, using: &rng)
                var calls = 0
                let result = tree.modifyValue(forKey: key) { (value: inout Int) -> Int in
                    calls += 1
                    value += delta
                    return value
                }
                let expected = model[key].map { $0 + delta }
                if let expected { model[key] = expected }
                #expect(result == expected, "modify \(key)")
                #expect(calls == (expected == nil ? 0 : 1), "modify \(key) body calls")
            } else {
                #expect(tree[key] == model[key], "lookup \(key)")
                #expect(tree.contains(key) == (model[key] != nil), "contains \(key)")
            }
            #expect(tree.count == model.count)
            if step % 500 == 499 {
                expectMatches(tree, model, probes: 100, keySpace: keySpace, rng: &rng)
                maxHeight = max(maxHeight, height(tree))
            }
        }
        // The workload must have grown the tree past two levels, or splits of internal nodes went untested.
        #expect(maxHeight >= 3)

        var remaining = model.keys.shuffled(using: &rng)
        while let key = remaining.popLast() {
            #expect(tree.removeValue(forKey: key) == model.removeValue(forKey: key), "drain \(key)")
            if remaining.count % 97 == 0 { expectMatches(tree, model, probes: 20, keySpace: keySpace, rng: &rng) }
        }
        #expect(tree.isEmpty)
        #expect(height(tree) == 1)
        tree.checkInvariants()
    }

    @Test("A copy taken before mutations keeps its contents and shares every node off the mutated path")
    func snapshotIsolationAndStructuralSharing() {
        var tree = Tree()
        for key in 0..<5_000 { tree.updateValue(key * 10, forKey: key) }
        let snapshot = tree
        #expect(snapshot.root === tree.root)

        tree.updateValue(-1, forKey: 2_500)
        #expect(snapshot.root !== tree.root)
        #expect(snapshot.root.leaf(for: 2_500) !== tree.root.leaf(for: 2_500))
        #expect(snapshot.root.leaf(for: 4_900) === tree.root.leaf(for: 4_900))
        #expect(snapshot.root.leaf(for: 10) === tree.root.leaf(for: 10))

        tree.updateValue(7, forKey: 10_000)
        tree.removeValue(forKey: 0)
        tree.modifyValue(forKey: 100) { $0 = 42 }
        for key in stride(from: 1_000, to: 2_000, by: 3) { tree.removeValue(forKey: key) }
        for key in 5_000..<6_000 { tree.updateValue(key, forKey: key) }

        snapshot.checkInvariants()
        tree.checkInvariants()
        #expect(snapshot.count == 5_000)
        #expect(snapshot.keys == Array(0..<5_000))
        #expect(Array(snapshot).allSatisfy { $0.value == $0.key * 10 })
        #expect(tree[2_500] == -1 && tree[10_000] == 7 && tree[0] == nil && tree[100] == 42 && tree[1_000] == nil)
        #expect(tree.count == 5_000 + 1 - 1 - 334 + 1_000)

        // Mutating a copy of the snapshot leaves the snapshot alone too.
        var copy = snapshot
        copy.removeValue(forKey: 4_999)
        copy.modifyValue(forKey: 1) { $0 = -7 }
        #expect(snapshot[4_999] == 49_990 && snapshot[1] == 10 && snapshot.count == 5_000)
        #expect(copy[4_999] == nil && copy[1] == -7)
    }

    @Test("Snapshots can be read on other tasks while the original keeps being mutated")
    func concurrentSnapshotReads() async {
        var tree = Tree()
        for key in 0..<10_000 { tree.updateValue(key, forKey: key) }
        let snapshot = tree
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    snapshot.keys == Array(0..<10_000) && (0..<10_000).allSatisfy { snapshot[$0] == $0 }
                }
            }
            for key in 0..<10_000 { tree.updateValue(-key, forKey: key) }
            for key in stride(from: 0, to: 10_000, by: 3) { tree.removeValue(forKey: key) }
            for await intact in group { #expect(intact) }
        }
        tree.checkInvariants()
        #expect(tree[4] == -4 && tree[3] == nil && snapshot[3] == 3)
    }

    @Test("Removing or modifying an absent key in a shared tree copies nothing")
    func absentKeysDoNotCopyThePath() {
        var tree = Tree()
        for key in stride(from: 0, to: 10_000, by: 2) { tree.updateValue(key, forKey: key) }
        var copy = tree
        #expect(copy.removeValue(forKey: 5_001) == nil)
        var called = false
        #expect(copy.modifyValue(forKey: 7_777) { _ in called = true } == nil)
        #expect(!called)
        #expect(copy.root === tree.root)
        #expect(copy.removeValue(forKey: 5_000) == 5_000)
        #expect(copy.root !== tree.root && tree[5_000] == 5_000)
    }

    @Test("modifyValue mutates the stored value in place when the path is uniquely owned")
    func modifyValueDoesNotCopyTheValue() {
        var tree = SortedTree<Int, TreeTestPayload>()
        for key in 0..<1_000 { tree.updateValue(TreeTestPayload(box: TreeTestBox(key)), forKey: key) }
        #expect(tree.modifyValue(forKey: 500) { isKnownUniquelyReferenced(&$0.box) } == true)

        let snapshot = tree
        let unique = tree.modifyValue(forKey: 500) { (payload: inout TreeTestPayload) -> Bool in
            let wasUnique = isKnownUniquelyReferenced(&payload.box)
            payload.box = TreeTestBox(-500)
            return wasUnique
        }
        #expect(unique == false)
        #expect(snapshot[500]?.box.number == 500 && tree[500]?.box.number == -500)
    }

    @Test("An iterator keeps yielding the contents the tree had when it was made")
    func iteratorIsASnapshot() {
        var tree = Tree()
        for key in 0..<300 { tree.updateValue(key, forKey: key) }
        var iterator = tree.makeIterator()
        for key in 0..<300 where key % 2 == 0 { tree.removeValue(forKey: key) }
        var yielded: [Int] = []
        while let element = iterator.next() { yielded.append(element.key) }
        #expect(yielded == Array(0..<300))
        #expect(iterator.next() == nil)
        #expect(tree.keys == Array(stride(from: 1, to: 300, by: 2)))
    }

    @Test("forEach(from:) starts at the first key >= the bound and stops when the body returns false")
    func forEachFromBounds() {
        var tree = Tree()
        for key in stride(from: 0, to: 2_000, by: 2) { tree.updateValue(key * 3, forKey: key) }
        func visit(from bound: Int, limit: Int = .max) -> [Int] {
            var keys: [Int] = []
            tree.forEach(from: bound) { key, value in
                #expect(value == key * 3)
                keys.append(key)
                return keys.count < limit
            }
            return keys
        }
        #expect(visit(from: -5) == Array(stride(from: 0, to: 2_000, by: 2)))
        #expect(visit(from: 0).first == 0)
        #expect(visit(from: 3).first == 4)
        #expect(visit(from: 4).first == 4)
        #expect(visit(from: 1_998) == [1_998])
        #expect(visit(from: 1_999).isEmpty)
        #expect(visit(from: 5_000).isEmpty)
        #expect(visit(from: 100, limit: 10) == Array(stride(from: 100, through: 118, by: 2)))
        #expect(visit(from: 0, limit: 1) == [0])

        // Separators left stale by removals must still route correctly.
        for key in stride(from: 600, to: 1_400, by: 2) { tree.removeValue(forKey: key) }
        tree.checkInvariants()
        for bound in stride(from: -1, through: 2_001, by: 7) {
            let expected = tree.keys.filter { $0 >= bound }
            #expect(visit(from: bound) == expected, "bound \(bound)")
        }
        #expect(visit(from: 601, limit: 3) == [1_400, 1_402, 1_404])
    }

    @Test("An empty tree has no entries and every query reports absence")
    func emptyTree() {
        var tree = Tree()
        #expect(tree.isEmpty && tree.count == 0)
        #expect(tree[1] == nil && !tree.contains(1))
        #expect(tree.first == nil && tree.last == nil)
        #expect(tree.keys.isEmpty)
        #expect(tree.rank(of: 42) == 0 && tree.index(of: 42) == nil)
        #expect(tree.removeValue(forKey: 1) == nil)
        var called = false
        #expect(tree.modifyValue(forKey: 1) { _ in called = true } == nil)
        #expect(!called)
        var iterator = tree.makeIterator()
        #expect(iterator.next() == nil)
        tree.forEach { _, _ in called = true }
        tree.forEach(from: 0) { _, _ in
            called = true
            return true
        }
        #expect(!called)
        tree.checkInvariants()

        tree.updateValue(5, forKey: 1)
        #expect(tree.removeValue(forKey: 1) == 5)
        #expect(tree.isEmpty && tree.first == nil && height(tree) == 1)
        tree.checkInvariants()
    }

    @Test("Ascending appends fill every leaf, and removing most entries collapses the root")
    func appendsFillLeavesAndRemovalsCollapse() {
        var tree = Tree()
        for key in 0..<100_000 { tree.updateValue(-key, forKey: key) }
        tree.checkInvariants()
        func leafCount(_ node: Tree.Node) -> Int {
            node.isLeaf ? 1 : node.children.reduce(0) { $0 + leafCount($1) }
        }
        let capacity = Tree.leafCapacity
        #expect(leafCount(tree.root) == (100_000 + capacity - 1) / capacity)
        #expect(height(tree) == 3)
        #expect(tree.element(at: 77_777).key == 77_777 && tree.element(at: 77_777).value == -77_777)
        #expect(tree.rank(of: 50_000) == 50_000 && tree.index(of: 99_999) == 99_999)

        for key in (10..<100_000).reversed() { tree.removeValue(forKey: key) }
        tree.checkInvariants()
        #expect(tree.keys == Array(0..<10))
        #expect(height(tree) == 1)
    }

    @Test("Keys inserted in ascending runs that interleave with older keys fill the leaves they sweep past")
    func sweepsFillLeaves() {
        // "name-1" … "name-100000" in an index ordered by text: each digit count sweeps through
        // leaves full of the shorter names. Splitting full leaves in half would leave them 54% full.
        var tree = SortedTree<String, Int>()
        for number in 1...100_000 { tree.updateValue(number, forKey: "name-\(number)") }
        tree.checkInvariants()
        #expect(tree.count == 100_000)
        #expect(tree["name-54321"] == 54_321 && tree["name-100000"] == 100_000 && tree["name-0"] == nil)
        func leafCount(_ node: SortedTree<String, Int>.Node) -> Int {
            node.isLeaf ? 1 : node.children.reduce(0) { $0 + leafCount($1) }
        }
        let fill = Double(tree.count) / Double(leafCount(tree.root) * SortedTree<String, Int>.leafCapacity)
        #expect(fill > 0.9, "leaves \(Int(fill * 100))% full")
        #expect(tree.keys == (1...100_000).map { "name-\($0)" }.sorted())
    }

    @Test("Entries move only into a leaf the tree owns: a copy taken before keeps every entry where it was")
    func redistributionLeavesCopiesAlone() {
        var tree = Tree()
        for key in stride(from: 0, to: 40_000, by: 4) { tree.updateValue(key, forKey: key) }
        let copy = tree
        let copiedKeys = copy.keys
        // Keys between the existing ones, ascending: sweeps through full leaves.
        for key in stride(from: 1, to: 40_000, by: 4) { tree.updateValue(key, forKey: key) }
        for key in stride(from: 2, to: 40_000, by: 4) { tree.updateValue(key, forKey: key) }
        tree.checkInvariants()
        copy.checkInvariants()
        #expect(copy.keys == copiedKeys)
        #expect(tree.keys == (0..<40_000).filter { $0 % 4 != 3 })
        #expect(tree.count == 30_000 && copy.count == 10_000)
    }

    @Test("Descending inserts keep the structure valid")
    func descendingInserts() {
        var tree = Tree()
        for key in (0..<20_000).reversed() { tree.updateValue(key, forKey: key) }
        tree.checkInvariants()
        #expect(tree.count == 20_000 && tree.first?.key == 0 && tree.last?.key == 19_999)
        #expect(tree.element(at: 12_345).key == 12_345)
    }
}
