/// One match of a query, as a notifier keeps the query's results in their order: its sort
/// values, then its object key as the tie-break (the order a query returns its matches in).
///
/// Defined in the engine, next to ``SortedTree``, rather than in the notifier's module, so that
/// the tree's operations on a tree of matches are compiled for this type (the extension below).
/// A `SortedTree` of a type from another module runs the tree's generic code unspecialized,
/// copying entries through value witnesses and looking up type metadata on every call: that was
/// most of a notifier's work per commit (about 70 µs of a one-row change to a 49,000-match query).
package struct OrderedMatch: Comparable, Sendable {
    /// The matching object.
    package let key: ObjectKey
    /// Its values of the query's sort keys, in order, and the sort keys' directions (shared by
    /// every match of one query); nil for an unsorted query. An unsorted query's match is then
    /// two words without references: the tree copies its nodes' entries without reference
    /// counting (cloning the three nodes on the path of a one-row change took about 400 retains
    /// when every match held two arrays).
    private let sort: (values: [Value], ascending: [Bool])?

    /// A match of `key` with `sortValues`, sorted in the directions `ascending`.
    package init(key: ObjectKey, sortValues: [Value], ascending: [Bool]) {
        self.key = key
        sort = sortValues.isEmpty ? nil : (sortValues, ascending)
    }

    package static func < (lhs: OrderedMatch, rhs: OrderedMatch) -> Bool {
        if let left = lhs.sort, let right = rhs.sort {
            for index in left.values.indices {
                let order = left.values[index].compare(right.values[index])
                if order != 0 { return left.ascending[index] ? order < 0 : order > 0 }
            }
        }
        return lhs.key < rhs.key
    }

    package static func == (lhs: OrderedMatch, rhs: OrderedMatch) -> Bool {
        guard lhs.key == rhs.key else { return false }
        guard let left = lhs.sort, let right = rhs.sort else { return true }
        return left.values.indices.allSatisfy { left.values[$0].compare(right.values[$0]) == 0 }
    }
}

/// A query's matches in result order: the tree's operations, compiled for ``OrderedMatch`` in
/// this module (see there), for the notifier to call.
extension SortedTree where Key == OrderedMatch, Value == Void {
    /// Adds `match` (or keeps it, when present).
    ///
    /// - Complexity: O(log n).
    package mutating func insertMatch(_ match: OrderedMatch) { updateValue((), forKey: match) }

    /// Removes `match`, when present.
    ///
    /// - Complexity: O(log n).
    package mutating func removeMatch(_ match: OrderedMatch) { removeValue(forKey: match) }

    /// Whether `match` is present.
    ///
    /// - Complexity: O(log n).
    package func containsMatch(_ match: OrderedMatch) -> Bool { contains(match) }

    /// The position of `match`, or nil when it is absent.
    ///
    /// - Complexity: O(log n).
    package func indexOfMatch(_ match: OrderedMatch) -> Int? { index(of: match) }

    /// The number of matches ordered before `match`.
    ///
    /// - Complexity: O(log n).
    package func rankOfMatch(_ match: OrderedMatch) -> Int { rank(of: match) }

    /// The object of the match at `position`.
    ///
    /// - Complexity: O(log n).
    package func matchedObject(at position: Int) -> ObjectKey { element(at: position).key.key }

    /// The matched objects in order.
    ///
    /// - Complexity: O(n).
    package var matchedObjects: [ObjectKey] { keys.map(\.key) }
}
