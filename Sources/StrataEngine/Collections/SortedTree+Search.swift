/// Searching a node's sorted keys for a lookup (a read's descent, and the descent of an in-place
/// value change). A node of integer keys (row keys, `Int64` primary keys, which are mostly
/// allocated in sequence) starts where its keys' range puts the key, as an interpolation search
/// does, and widens from there; other keys use a binary search. The start only decides which keys
/// are read first: the answer is the same, and the cost on keys spread unevenly is at most about
/// twice a binary search's comparisons. Insertions and removals bisect: a bulk insert of
/// ascending keys ran about a tenth slower with interpolated insertion searches (alternating runs
/// of both builds), while primary-key lookups ran a fifth faster with interpolated lookups.
extension SortedTree.Node {
    /// The first index of `keys` whose key is `>= key`: a lookup's search (see above).
    @inline(__always)
    static func searchLowerBound(_ key: Key, in keys: UnsafeBufferPointer<Key>) -> Int {
        partition(keys, near: interpolatedPosition(of: key, in: keys)) { !($0 < key) }
    }

    /// The first index of `keys` whose key is `> key`: a lookup's search (see above).
    @inline(__always)
    static func searchUpperBound(_ key: Key, in keys: UnsafeBufferPointer<Key>) -> Int {
        partition(keys, near: interpolatedPosition(of: key, in: keys)) { key < $0 }
    }

    /// Whether the keys are integers (`Int64`, ``ObjectKey``), searched by interpolation.
    @inline(__always)
    static var hasIntegerKeys: Bool { Key.self == Int64.self || Key.self == ObjectKey.self }

    /// Where `key` would be among a leaf's `count` keys if they were spread evenly over
    /// `bounds` (the separators a descent passed on either side of the leaf: its keys are
    /// `>= lower` and `< upper`), computed without reading the keys; nil when a bound is missing
    /// (the tree's first or last leaf), the leaf is small, or the keys are not integers.
    @inline(__always)
    static func interpolatedPosition(of key: Key, count: Int, within bounds: SortedTree.SearchBounds) -> Int? {
        guard hasIntegerKeys, count >= interpolationThreshold, let lower = bounds.lower, let upper = bounds.upper
        else { return nil }
        // The keys fill `lower ..< upper`: `count` slots of the span.
        return spread(unsafeBitCast(key, to: Int64.self), from: unsafeBitCast(lower, to: Int64.self),
                      to: unsafeBitCast(upper, to: Int64.self), slots: count, count: count)
    }

    /// The position among `count` keys of `target` on a line from `low` (position 0) to `high`
    /// cut into `slots` equal parts, clamped to the keys' positions.
    @inline(__always)
    private static func spread(_ target: Int64, from low: Int64, to high: Int64, slots: Int, count: Int) -> Int {
        if target <= low { return 0 }
        if target >= high { return count - 1 }
        // In floating point: the differences of two `Int64`s can overflow.
        let fraction = (Double(target) - Double(low)) / (Double(high) - Double(low))
        return min(count - 1, max(0, Int(fraction * Double(slots))))
    }

    /// Nodes with fewer keys are searched by bisection: their keys take a few cache lines.
    private static var interpolationThreshold: Int { 16 }

    /// Where `key` would be in `keys` if the keys were spread evenly between the first and the
    /// last, for integer keys (`Int64`, ``ObjectKey``) in a node large enough to gain from it;
    /// nil for other keys.
    @inline(__always)
    static func interpolatedPosition(of key: Key, in keys: UnsafeBufferPointer<Key>) -> Int? {
        guard hasIntegerKeys, keys.count >= interpolationThreshold,
              let base = keys.baseAddress else { return nil }
        // Both are one `Int64` in memory (a specialized build folds the type test away).
        let target = unsafeBitCast(key, to: Int64.self)
        let integers = UnsafeRawPointer(base).assumingMemoryBound(to: Int64.self)
        // The first key is at position 0 and the last at `count - 1`.
        return spread(target, from: integers[0], to: integers[keys.count - 1], slots: keys.count - 1, count: keys.count)
    }

    /// The first index whose key satisfies `isAbove`, which must be false then true along `keys`:
    /// searched outward from `start` in steps that double until the answer is bracketed, then by
    /// bisection inside the bracket; from the whole range when there is no start.
    @inline(__always)
    static func partition(_ keys: UnsafeBufferPointer<Key>, near start: Int?, _ isAbove: (Key) -> Bool) -> Int {
        guard let start else { return bisect(keys, 0, keys.count, isAbove) }
        var step = 1
        if isAbove(keys[start]) {
            // The answer is at most `start`: look below it.
            var high = start, probe = start &- 1
            while probe >= 0 && isAbove(keys[probe]) {
                high = probe
                probe &-= step
                step &<<= 1
            }
            return bisect(keys, max(probe &+ 1, 0), high, isAbove)
        }
        // The answer is above `start`.
        var low = start &+ 1, probe = start &+ 1
        while probe < keys.count && !isAbove(keys[probe]) {
            low = probe &+ 1
            probe &+= step
            step &<<= 1
        }
        return bisect(keys, low, min(probe, keys.count), isAbove)
    }

    /// The first index in `low ..< high` whose key satisfies `isAbove`, or `high`, when the answer
    /// is known to lie in `low ... high`.
    @inline(__always)
    private static func bisect(_ keys: UnsafeBufferPointer<Key>, _ low: Int, _ high: Int,
                               _ isAbove: (Key) -> Bool) -> Int {
        var low = low, high = high
        while low < high {
            let mid = (low &+ high) &>> 1
            if isAbove(keys[mid]) { high = mid } else { low = mid &+ 1 }
        }
        return low
    }
}

extension SortedTree {
    /// The separators a descent passed on either side of the subtree it reached: every key below
    /// is `>= lower` and `< upper` (nil: no bound on that side).
    struct SearchBounds {
        var lower: Key?
        var upper: Key?
    }
}
