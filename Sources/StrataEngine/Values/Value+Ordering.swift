extension Value {
    /// The rank of each kind in the total order, lowest first.
    private var kindRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .float, .double: 2
        case .decimal128: 3
        case .timestamp: 4
        case .string: 5
        case .binary: 6
        case .objectId: 7
        case .uuid: 8
        case .link: 9
        case .list: 10
        case .set: 11
        case .dictionary: 12
        }
    }

    private var numericTieBreak: Int {
        switch self {
        case .int: 0
        case .float: 1
        default: 2
        }
    }

    private var numeric: Double? {
        switch self {
        case .int(let value): Double(value)
        case .float(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// A strict total order over values, consistent with `==`: kinds in a fixed order (null,
    /// bool, numbers, decimal, timestamp, string, binary, object id, uuid, link, collections),
    /// numbers compared numerically across int, float and double. Sets keep their elements in
    /// this order.
    ///
    /// - Complexity: O(1) for scalars; O(n) for strings, binaries and collections.
    public func precedes(_ other: Value) -> Bool {
        let (leftRank, rightRank) = (kindRank, other.kindRank)
        if leftRank != rightRank { return leftRank < rightRank }
        switch (self, other) {
        case (.null, .null): return false
        case let (.bool(a), .bool(b)): return !a && b
        case let (.int(a), .int(b)): return a < b
        case let (.string(a), .string(b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        case let (.binary(a), .binary(b)): return a.lexicographicallyPrecedes(b)
        case let (.timestamp(a), .timestamp(b)): return a < b
        case let (.decimal128(a), .decimal128(b)): return (a.high, a.low) < (b.high, b.low)
        case let (.objectId(a), .objectId(b)): return a < b
        case let (.uuid(a), .uuid(b)): return a < b
        case let (.link(a), .link(b)): return a < b
        case let (.list(a), .list(b)), let (.set(a), .set(b)):
            return a.lexicographicallyPrecedes(b) { $0.precedes($1) }
        case let (.dictionary(a), .dictionary(b)):
            if a.keys != b.keys { return a.keys.lexicographicallyPrecedes(b.keys) }
            return a.values.lexicographicallyPrecedes(b.values) { $0.precedes($1) }
        default:
            let (a, b) = (numeric ?? 0, other.numeric ?? 0)
            if a != b { return a < b || (a.isNaN && !b.isNaN) }
            return numericTieBreak < other.numericTieBreak
        }
    }
}

extension Array where Element == Value {
    /// The position of `value` in a set's sorted, unique elements, or where it would go.
    ///
    /// - Complexity: O(log n) comparisons.
    func setPosition(of value: Value) -> (index: Int, found: Bool) {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid].precedes(value) { low = mid + 1 } else { high = mid }
        }
        return (low, low < count && self[low] == value)
    }
}
