#if canImport(Glibc)
import Glibc
#endif

extension Value: Comparable {
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

    private var numeric: Double {
        switch self {
        case .int(let value): Double(value)
        case .float(let value): Double(value)
        case .double(let value): value
        default: 0
        }
    }

    /// Three-way comparison in a strict total order consistent with `==`: kinds in a fixed
    /// order (null, bool, numbers, decimal, timestamp, string, binary, object id, uuid, link,
    /// collections), numbers compared numerically across int, float and double (ties broken by
    /// kind), strings by UTF-8 bytes. Sets keep their elements, and indexes their keys, in this
    /// order.
    ///
    /// - Returns: a negative number, zero or a positive number as `self` orders before, equal
    ///   to, or after `other`.
    /// - Complexity: O(1) for scalars; O(n) for strings, binaries and collections.
    package func compare(_ other: Value) -> Int {
        // Integers first: primary keys and indexes of integer columns compare nothing else.
        if case .int(let a) = self, case .int(let b) = other { return a == b ? 0 : (a < b ? -1 : 1) }
        if case .double(let a) = self, case .double(let b) = other {
            // As the numeric case below orders them: NaN before every number.
            if a < b || (a.isNaN && !b.isNaN) { return -1 }
            if b < a || (b.isNaN && !a.isNaN) { return 1 }
            return 0
        }
        let (leftRank, rightRank) = (kindRank, other.kindRank)
        if leftRank != rightRank { return leftRank < rightRank ? -1 : 1 }
        switch (self, other) {
        case (.null, .null): return 0
        case let (.bool(a), .bool(b)): return a == b ? 0 : (a ? 1 : -1)
        case let (.int(a), .int(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case let (.string(a), .string(b)): return Self.compareUTF8(a, b)
        case let (.binary(a), .binary(b)): return Self.compareBytes(a, b)
        case let (.timestamp(a), .timestamp(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case let (.decimal128(a), .decimal128(b)):
            return (a.high, a.low) == (b.high, b.low) ? 0 : ((a.high, a.low) < (b.high, b.low) ? -1 : 1)
        case let (.objectId(a), .objectId(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case let (.uuid(a), .uuid(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case let (.link(a), .link(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case let (.list(a), .list(b)), let (.set(a), .set(b)): return Self.compareElements(a, b)
        case let (.dictionary(a), .dictionary(b)):
            for (left, right) in zip(a.keys, b.keys) {
                let order = Self.compareUTF8(left, right)
                if order != 0 { return order }
            }
            if a.count != b.count { return a.count < b.count ? -1 : 1 }
            return Self.compareElements(a.values, b.values)
        default:
            let (a, b) = (numeric, other.numeric)
            if a < b || (a.isNaN && !b.isNaN) { return -1 }
            if b < a || (b.isNaN && !a.isNaN) { return 1 }
            let (x, y) = (numericTieBreak, other.numericTieBreak)
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    /// Whether `self` orders strictly before `other` (see ``compare(_:)``).
    package func precedes(_ other: Value) -> Bool { compare(other) < 0 }

    public static func < (lhs: Value, rhs: Value) -> Bool {
        if case .int(let a) = lhs, case .int(let b) = rhs { return a < b }
        return lhs.compare(rhs) < 0
    }

    /// Whether `a` and `b` have the same UTF-8 bytes: string equality as the engine and Realm
    /// Core define it (not Swift's canonical equivalence).
    package static func sameUTF8(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && compareUTF8(a, b) == 0
    }

    /// Three-way comparison of the UTF-8 bytes of `a` and `b` (Realm Core's string order; Swift's
    /// own `String` comparison follows canonical equivalence and is not a strict order on every
    /// input).
    static func compareUTF8(_ a: String, _ b: String) -> Int {
        // Native and small strings lend their UTF-8 in place (a small one from a copy on the
        // stack): no copy of either string, no uniqueness check.
        let inPlace = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                compareRaw(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
            }
        }
        if let inPlace, let order = inPlace { return order }
        var a = a, b = b
        return a.withUTF8 { left in
            b.withUTF8 { right in compareRaw(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) }
        }
    }

    private static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { left in b.withUnsafeBytes { right in compareRaw(left, right) } }
    }

    private static func compareRaw(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = min(left.count, right.count)
        if common > 0 {
            let order = memcmp(left.baseAddress!, right.baseAddress!, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    private static func compareElements(_ a: [Value], _ b: [Value]) -> Int {
        for (left, right) in zip(a, b) {
            let order = left.compare(right)
            if order != 0 { return order }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}

extension Array where Element == Value {
    /// The position of `value` in a set's sorted, unique elements, or where it would go.
    ///
    /// - Complexity: O(log n) comparisons.
    package func setPosition(of value: Value) -> (index: Int, found: Bool) {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid].compare(value) < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, low < count && self[low] == value)
    }
}
