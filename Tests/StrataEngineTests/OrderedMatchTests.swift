import StrataTestSupport
import Testing
@testable import StrataEngine

@Suite("Ordered matches (a notifier's results in query order)")
struct OrderedMatchTests {
    @Test("unsorted matches order by object key; sorted ones by their values in each key's direction, then by object key")
    func ordering() {
        let unsorted = [5, 1, 3].map { OrderedMatch(key: ObjectKey(Int64($0)), sortValues: [], ascending: []) }
        #expect(unsorted.sorted().map(\.key.rawValue) == [1, 3, 5])
        #expect(unsorted[0] == OrderedMatch(key: ObjectKey(5), sortValues: [], ascending: []))

        // Sorted by the first value descending, then the second ascending, then the key.
        func match(_ key: Int64, _ first: Int64, _ second: String) -> OrderedMatch {
            OrderedMatch(key: ObjectKey(key), sortValues: [.int(first), .string(second)], ascending: [false, true])
        }
        let matches = [match(1, 10, "b"), match(2, 20, "a"), match(3, 10, "a"), match(4, 10, "a"), match(5, 30, "z")]
        #expect(matches.sorted().map(\.key.rawValue) == [5, 2, 3, 4, 1])
        #expect(match(3, 10, "a") == match(3, 10, "a"))
        #expect(match(3, 10, "a") != match(3, 10, "b"))
        #expect(match(3, 10, "a") != match(4, 10, "a"))
    }

    @Test("a tree of matches inserts, finds, ranks, positions and removes them as a sorted array does")
    func treeOperations() {
        var generator = SeededRandom(seed: 0x5eed)
        var tree = SortedTree<OrderedMatch, Void>()
        var model: [OrderedMatch] = []
        for _ in 0..<3_000 {
            let key = ObjectKey(Int64(generator.next() % 500))
            // Sorted descending by the key modulo 7 (many ties, broken by the key).
            let match = OrderedMatch(key: key, sortValues: [.int(key.rawValue % 7)], ascending: [false])
            if generator.next() % 3 == 0 {
                tree.removeMatch(match)
                model.removeAll { $0 == match }
            } else {
                tree.insertMatch(match)
                if !model.contains(match) { model.append(match) }
            }
        }
        model.sort()
        #expect(tree.count == model.count)
        #expect(tree.matchedObjects == model.map(\.key))
        for (position, match) in model.enumerated() {
            #expect(tree.containsMatch(match))
            #expect(tree.indexOfMatch(match) == position)
            #expect(tree.rankOfMatch(match) == position)
            #expect(tree.matchedObject(at: position) == match.key)
        }
        let absent = OrderedMatch(key: ObjectKey(10_000), sortValues: [.int(3)], ascending: [false])
        #expect(!tree.containsMatch(absent) && tree.indexOfMatch(absent) == nil)
    }
}
