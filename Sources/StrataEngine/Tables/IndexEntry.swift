/// One entry of a secondary index: a value and an object that has it, ordered by value then
/// object, so the objects with one value are a contiguous, ascending run of the index.
struct IndexEntry: Comparable, Sendable {
    var value: Value
    var object: ObjectKey

    static func < (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        let order = lhs.value.compare(rhs.value)
        return order != 0 ? order < 0 : lhs.object < rhs.object
    }

    /// Equal in the index's own order, so that a NaN (which is not `==` to itself) can still be
    /// found and removed.
    static func == (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        lhs.object == rhs.object && lhs.value.compare(rhs.value) == 0
    }
}

/// An ordered secondary index: (value, object) entries in a persistent B+tree.
typealias SecondaryIndex = SortedTree<IndexEntry, Void>

extension SortedTree where Key == IndexEntry, Value == Void {
    /// The objects whose indexed value equals `value`, ascending.
    ///
    /// - Complexity: O(log n + k).
    func objects(equalTo value: StrataEngine.Value) -> [ObjectKey] {
        var found: [ObjectKey] = []
        forEach(from: IndexEntry(value: value, object: ObjectKey(.min))) { entry, _ in
            guard entry.value == value else { return false }
            found.append(entry.object)
            return true
        }
        return found
    }
}
