/// The change between two versions of an ordered collection, in Realm's form: `deletions` and
/// `modifications` are indices in the old collection, `insertions` indices in the new one, all
/// ascending. A move is a deletion plus an insertion.
package struct CollectionChangeSet: Sendable, Equatable, CustomStringConvertible {
    /// Old indices of elements that are gone (or moved).
    package var deletions: [Int]
    /// New indices of elements that are new (or moved).
    package var insertions: [Int]
    /// Old indices of elements that stayed in place and changed.
    package var modifications: [Int]

    /// Creates a change set; the index arrays are sorted.
    package init(deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []) {
        self.deletions = deletions.sorted()
        self.insertions = insertions.sorted()
        self.modifications = modifications.sorted()
    }

    /// Whether nothing changed.
    package var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    package var description: String { "deletions: \(deletions), insertions: \(insertions), modifications: \(modifications)" }

    /// The change from `old` to `new`, where elements are identified by value (the n-th
    /// occurrence of a value in `old` is the n-th in `new`) and `isModified` says which surviving
    /// elements changed.
    ///
    /// Elements kept in their relative order are not moved; the fewest elements are reported as
    /// moved (a longest increasing subsequence of the survivors stays put).
    ///
    /// - Complexity: O((n + m) log(n + m)).
    package static func diff<Element: Hashable>(
        old: [Element], new: [Element], isModified: (Element) -> Bool
    ) -> CollectionChangeSet {
        typealias Occurrence = DiffOccurrence<Element>
        func occurrences(_ elements: [Element]) -> [Occurrence] {
            var seen: [Element: Int] = [:]
            return elements.map { element in
                let ordinal = seen[element, default: 0]
                seen[element] = ordinal + 1
                return Occurrence(element: element, ordinal: ordinal)
            }
        }
        let oldItems = occurrences(old)
        let newItems = occurrences(new)
        var oldIndex: [Occurrence: Int] = [:]
        oldIndex.reserveCapacity(oldItems.count)
        for (index, item) in oldItems.enumerated() { oldIndex[item] = index }

        // Survivors, in new order, with their old index.
        var survivors: [(old: Int, new: Int)] = []
        var insertions: [Int] = []
        var kept = Set<Int>()
        for (index, item) in newItems.enumerated() {
            if let old = oldIndex[item] {
                survivors.append((old, index))
            } else {
                insertions.append(index)
            }
        }
        let stay = Set(longestIncreasingSubsequence(survivors.map(\.old)).map { survivors[$0].old })
        var modifications: [Int] = []
        for survivor in survivors {
            if stay.contains(survivor.old) {
                kept.insert(survivor.old)
                if isModified(oldItems[survivor.old].element) { modifications.append(survivor.old) }
            } else {
                insertions.append(survivor.new)
            }
        }
        let deletions = oldItems.indices.filter { !kept.contains($0) }
        return CollectionChangeSet(deletions: deletions, insertions: insertions, modifications: modifications)
    }

    /// The positions (into `values`) of one longest strictly increasing subsequence.
    ///
    /// - Complexity: O(n log n).
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // positions of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result: [Int] = []
        var position = tails.last ?? -1
        while position >= 0 {
            result.append(position)
            position = previous[position]
        }
        return result.reversed()
    }
}

/// The n-th occurrence of a value in a collection: the identity the diff matches on.
struct DiffOccurrence<Element: Hashable>: Hashable {
    let element: Element
    let ordinal: Int
}
