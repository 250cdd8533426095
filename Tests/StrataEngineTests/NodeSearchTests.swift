import StrataTestSupport
import Testing
@testable import StrataEngine

@Suite("Node key search")
struct NodeSearchTests {
    private typealias IntegerNode = SortedTree<Int64, Int>.Node
    private typealias RowKeyNode = SortedTree<ObjectKey, Int>.Node
    /// The tree size from which these tests' lookups use descent hints: smaller than the default,
    /// so that the trees are quick to build under the sanitizers.
    private static let hintsFrom = 16_384

    /// Sorted unique keys of `count`, spread as `shape` says.
    private static func keys(_ count: Int, _ shape: Int, _ random: inout SeededRandom) -> [Int64] {
        var keys = Set<Int64>()
        while keys.count < count {
            switch shape {
            case 0: keys.insert(Int64(keys.count))                                      // dense, in sequence
            case 1: keys.insert(Int64.random(in: -1_000_000...1_000_000, using: &random)) // even
            case 2: keys.insert(Int64(1) << Int64.random(in: 0...62, using: &random)
                                + Int64.random(in: 0...9, using: &random))             // skewed: powers of two
            default: keys.insert(Int64.random(in: Int64.min...Int64.max, using: &random)) // the whole range
            }
        }
        return keys.sorted()
    }

    @Test("lookups' and insertions' lower and upper bounds of integer and row keys match a linear search, for keys spread evenly or not")
    func boundsMatchLinearSearch() {
        let seed = SeededRandom.seedFromEnvironment()
        var random = SeededRandom(seed: seed)
        for count in [0, 1, 2, 15, 16, 17, 64, 255, 256] {
            for shape in 0..<4 {
                let keys = Self.keys(count, shape, &random)
                var probes: [Int64] = keys.flatMap { (key: Int64) -> [Int64] in [key, key &- 1, key &+ 1] } + [Int64.min, Int64.max, 0]
                for _ in 0..<50 { probes.append(Int64.random(in: Int64.min...Int64.max, using: &random)) }
                let rowKeys = keys.map(ObjectKey.init)
                for probe in probes {
                    let lower = keys.firstIndex { $0 >= probe } ?? keys.count
                    let upper = keys.firstIndex { $0 > probe } ?? keys.count
                    let found = keys.withUnsafeBufferPointer {
                        (IntegerNode.searchLowerBound(probe, in: $0), IntegerNode.searchUpperBound(probe, in: $0))
                    }
                    let foundRows = rowKeys.withUnsafeBufferPointer {
                        (RowKeyNode.searchLowerBound(ObjectKey(probe), in: $0),
                         RowKeyNode.searchUpperBound(ObjectKey(probe), in: $0))
                    }
                    let bisected = keys.withUnsafeBufferPointer {
                        (IntegerNode.lowerBound(probe, in: $0), IntegerNode.upperBound(probe, in: $0))
                    }
                    #expect(found == (lower, upper) && foundRows == (lower, upper) && bisected == (lower, upper),
                            "seed \(seed): \(count) keys of shape \(shape), probe \(probe)")
                }
            }
        }
    }

    @Test("a node of dense keys starts at the key's place: a present key is found in two comparisons")
    func denseKeysStartInPlace() {
        let keys = (0..<256).map { Int64($0) * 3 }
        var comparisons = 0
        let index = keys.withUnsafeBufferPointer { buffer in
            IntegerNode.partition(buffer, near: IntegerNode.interpolatedPosition(of: 300, in: buffer)) {
                comparisons += 1
                return $0 >= 300
            }
        }
        #expect(index == 100)
        #expect(comparisons <= 2)
        #expect(keys.withUnsafeBufferPointer { IntegerNode.interpolatedPosition(of: 300, in: $0) } == 100)
        // Keys of other types are bisected.
        #expect(["a", "b"].withUnsafeBufferPointer { SortedTree<String, Int>.Node.interpolatedPosition(of: "a", in: $0) } == nil)
    }

    @Test("lookups descending with the separators' bounds find every key and no other, in trees of integer and row keys spread evenly or not, after removals")
    func boundedLookupsMatchADictionary() {
        let seed = SeededRandom.seedFromEnvironment()
        var random = SeededRandom(seed: seed)
        for shape in 0..<4 {
            // Enough keys for several levels (shape 2 has only 630 distinct keys).
            let keys = Self.keys(shape == 2 ? 600 : 20_000, shape, &random)
            var integers = SortedTree<Int64, Int>()
            var rows = SortedTree<ObjectKey, Int>()
            var expected: [Int64: Int] = [:]
            for (position, key) in keys.enumerated() {
                _ = integers.updateValue(position, forKey: key)
                _ = rows.updateValue(position, forKey: ObjectKey(key))
                expected[key] = position
            }
            // Holes: a leaf's keys no longer spread over the whole of its bounds.
            for key in keys where Int.random(in: 0..<3, using: &random) == 0 {
                _ = integers.removeValue(forKey: key)
                _ = rows.removeValue(forKey: ObjectKey(key))
                expected[key] = nil
            }
            var probes: [Int64] = keys.flatMap { (key: Int64) -> [Int64] in [key, key &- 1, key &+ 1] } + [Int64.min, Int64.max, 0]
            for _ in 0..<200 { probes.append(Int64.random(in: Int64.min...Int64.max, using: &random)) }
            var mismatches = 0
            for probe in probes where integers[probe] != expected[probe] || rows[ObjectKey(probe)] != expected[probe] {
                mismatches += 1
            }
            #expect(mismatches == 0, "seed \(seed): shape \(shape)")
        }
    }

    @Test("lookups in a large tree record every child's arrays (and a branch child's own hints) in its branch, and find every key after changes moved those arrays, in place and in a copy")
    func descentHintsFollowChanges() {
        let seed = SeededRandom.seedFromEnvironment()
        var random = SeededRandom(seed: seed)
        let keys = Self.keys(40_000, 1, &random)
        var tree = SortedTree<Int64, Int>()
        var expected: [Int64: Int] = [:]
        for (position, key) in keys.enumerated() {
            _ = tree.updateValue(position, forKey: key)
            expected[key] = position
        }
        #expect(tree.descentHintCoverage.recorded == 0)
        for key in keys { _ = tree.value(for: key, hintsFrom: Self.hintsFrom) }
        let coverage = tree.descentHintCoverage
        #expect(coverage.children > 100 && coverage.recorded == coverage.children, "seed \(seed): \(coverage)")
        // A branch's slot also says where its child branch keeps its own hints (learnt by the
        // lookups passing through after the first one, which made them).
        #expect(coverage.branchesWithHints > 1 && coverage.linkedBranches == coverage.branchesWithHints,
                "seed \(seed): \(coverage)")

        // In place (the nodes are the tree's own), then in a copy (whose changes clone the nodes
        // they touch): inserts and removals reallocate leaves' arrays and move children between
        // slots, leaving recorded hints stale, which lookups must survive and refresh.
        var mismatches = 0
        var before: (tree: SortedTree<Int64, Int>, expected: [Int64: Int])?
        for round in 0..<2 {
            for key in keys where Int.random(in: 0..<3, using: &random) == 0 {
                _ = tree.removeValue(forKey: key)
                expected[key] = nil
            }
            for _ in 0..<5_000 {
                let key = Int64.random(in: -1_000_000...1_000_000, using: &random)
                _ = tree.updateValue(-round, forKey: key)
                expected[key] = -round
            }
            for _ in 0..<2 {
                for key in keys + expected.keys.shuffled(using: &random).prefix(5_000) where tree.value(for: key, hintsFrom: Self.hintsFrom) != expected[key] {
                    mismatches += 1
                }
                for key in keys where before.map({ $0.tree.value(for: key, hintsFrom: Self.hintsFrom) != $0.expected[key] }) == true { mismatches += 1 }
            }
            before = (tree, expected)
        }
        #expect(mismatches == 0, "seed \(seed)")

        // A tree below the size records none.
        var small = SortedTree<Int64, Int>()
        for key in 0..<Int64(10_000) { _ = small.updateValue(Int(key), forKey: key) }
        for key in 0..<Int64(10_000) { _ = small.value(for: key, hintsFrom: Self.hintsFrom) }
        #expect(small.descentHintCoverage.recorded == 0 && small.descentHintCoverage.children > 0)
        #expect(small.descentHintCoverage.branchesWithHints == 0)
    }

    @Test("the position the separators' bounds give is where a dense leaf holds the key, and nil without both bounds")
    func boundedPositionOfDenseKeys() {
        var bounds = SortedTree<Int64, Int>.SearchBounds(lower: 1_000, upper: 1_256)
        #expect(IntegerNode.interpolatedPosition(of: 1_100, count: 256, within: bounds) == 100)
        #expect(IntegerNode.interpolatedPosition(of: 1_000, count: 256, within: bounds) == 0)
        #expect(IntegerNode.interpolatedPosition(of: 1_255, count: 256, within: bounds) == 255)
        #expect(IntegerNode.interpolatedPosition(of: -5, count: 256, within: bounds) == 0)
        #expect(IntegerNode.interpolatedPosition(of: Int64.max, count: 256, within: bounds) == 255)
        // Extreme bounds do not overflow.
        let wide = SortedTree<Int64, Int>.SearchBounds(lower: Int64.min, upper: Int64.max)
        #expect(IntegerNode.interpolatedPosition(of: 0, count: 256, within: wide) == 128)
        // A small leaf, a missing bound, other keys: no guess.
        #expect(IntegerNode.interpolatedPosition(of: 1_100, count: 15, within: bounds) == nil)
        bounds.upper = nil
        #expect(IntegerNode.interpolatedPosition(of: 1_100, count: 256, within: bounds) == nil)
        #expect(SortedTree<String, Int>.Node.interpolatedPosition(
            of: "a", count: 256, within: SortedTree<String, Int>.SearchBounds(lower: "a", upper: "z")) == nil)
    }
}
