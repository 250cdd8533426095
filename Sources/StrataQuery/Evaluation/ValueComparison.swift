import Foundation
import StrataEngine
import StrataSupport

/// How the query language compares two values: numbers across int, float, double and decimal;
/// strings with `[c]` / `[d]`; `LIKE` wildcards; null only equal to null.
enum ValueComparison {
    /// Whether `left op right` holds.
    static func holds(_ left: Value, _ op: ComparisonOperator, _ right: Value, options: StringOptions) -> Bool {
        // Same-kind ints and strings are the hot path of scans.
        if case .int(let a) = left, case .int(let b) = right { return holds(a, op, b) }
        if options.isEmpty, case .string(let a) = left, case .string(let b) = right {
            if op == .equal { return Value.sameUTF8(a, b) }
            if op == .notEqual { return !Value.sameUTF8(a, b) }
        }
        switch op {
        case .equal: return equal(left, right, options)
        case .notEqual: return !equal(left, right, options)
        case .less: return order(left, right).map { $0 < 0 } ?? false
        case .lessOrEqual: return order(left, right).map { $0 <= 0 } ?? false
        case .greater: return order(left, right).map { $0 > 0 } ?? false
        case .greaterOrEqual: return order(left, right).map { $0 >= 0 } ?? false
        case .beginsWith, .endsWith, .contains, .like: return stringTest(left, op, right, options)
        }
    }

    /// Whether `a op b` holds for two integers (false for the string operators).
    @inline(__always)
    static func holds(_ a: Int64, _ op: ComparisonOperator, _ b: Int64) -> Bool {
        switch op {
        case .equal: return a == b
        case .notEqual: return a != b
        case .less: return a < b
        case .lessOrEqual: return a <= b
        case .greater: return a > b
        case .greaterOrEqual: return a >= b
        default: return false
        }
    }

    static func equal(_ left: Value, _ right: Value, _ options: StringOptions) -> Bool {
        switch (left, right) {
        case let (.string(a), .string(b)):
            // Exact equality is byte equality, as Realm Core's (and as the indexes order strings);
            // `[c]` / `[d]` compare folded forms.
            return options.isEmpty ? Value.sameUTF8(a, b) : fold(a, options) == fold(b, options)
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        default:
            if let order = order(left, right) { return order == 0 }
            return left == right
        }
    }

    /// The order of two values of comparable kinds, nil when they cannot be ordered.
    static func order(_ left: Value, _ right: Value) -> Int? {
        switch (left, right) {
        case let (.int(a), .int(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.int, .double), (.double, .int), (.double, .double), (.float, _), (_, .float):
            guard let a = number(left), let b = number(right), !a.isNaN, !b.isNaN else { return nil }
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.decimal128, _), (_, .decimal128):
            guard let a = decimal(left), let b = decimal(right), !a.isNaN, !b.isNaN else { return nil }
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.string, .string), (.timestamp, .timestamp), (.objectId, .objectId), (.uuid, .uuid),
             (.binary, .binary), (.bool, .bool), (.link, .link):
            return left.compare(right)
        default: return nil
        }
    }

    static func number(_ value: Value) -> Double? {
        switch value {
        case .int(let n): Double(n)
        case .float(let n): Double(n)
        case .double(let n): n
        case .decimal128(let bits): Decimal128(bid: (bits.low, bits.high)).doubleValue
        default: nil
        }
    }

    static func decimal(_ value: Value) -> Decimal128? {
        switch value {
        case .int(let n): Decimal128(n)
        case .float(let n): Decimal128(n)
        case .double(let n): Decimal128(n)
        case .decimal128(let bits): Decimal128(bid: (bits.low, bits.high))
        default: nil
        }
    }

    /// `[c]` and `[d]` folding.
    static func fold(_ string: String, _ options: StringOptions) -> String {
        var folded = string
        if options.contains(.diacriticInsensitive) { folded = folded.folding(options: .diacriticInsensitive, locale: nil) }
        if options.contains(.caseInsensitive) { folded = folded.lowercased() }
        return folded
    }

    private static func stringTest(_ left: Value, _ op: ComparisonOperator, _ right: Value,
                                   _ options: StringOptions) -> Bool {
        // Up to text length × pattern length each: a computation over its CPU budget gives up.
        if CPUDeadline.hasPassed { return false }
        if case let (.binary(a), .binary(b)) = (left, right) {
            switch op {
            case .beginsWith: return a.starts(with: b)
            case .endsWith: return a.reversed().starts(with: b.reversed())
            case .contains: return b.isEmpty || a.indices.contains { a[$0...].starts(with: b) }
            default: return false
            }
        }
        guard case .string(let rawA) = left, case .string(let rawB) = right else { return false }
        let a = fold(rawA, options), b = fold(rawB, options)
        switch op {
        case .beginsWith: return a.hasPrefix(b)
        case .endsWith: return a.hasSuffix(b)
        case .contains: return b.isEmpty || a.contains(b)
        case .like: return like(a, b)
        default: return false
        }
    }

    /// Glob matching: `*` matches any run of characters, `?` exactly one. Short texts and
    /// patterns by backtracking (no set-up), others with a ``LikePattern``, linear in the text.
    ///
    /// - Complexity: O(n · ⌈m / 64⌉) for a text of n characters and a pattern of m.
    static func like(_ text: String, _ pattern: String) -> Bool {
        guard text.utf8.count * pattern.utf8.count > backtrackingWork else {
            return likeByBacktracking(Array(text.unicodeScalars), Array(pattern.unicodeScalars))
        }
        return LikePattern(pattern.unicodeScalars).matches(text.unicodeScalars)
    }

    /// The text length × pattern length up to which backtracking is cheaper than compiling a
    /// ``LikePattern``.
    static let backtrackingWork = 4_096

    /// Glob matching by backtracking to the last `*`.
    ///
    /// - Complexity: O(n · m) worst case, no recursion.
    static func likeByBacktracking(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var t = 0, p = 0
        var star: Int?
        var mark = 0
        var steps = 0
        while t < text.count {
            // A long text against a long pattern: a computation over its CPU budget gives up.
            steps &+= 1
            if steps & 0xFFFF == 0, CPUDeadline.hasPassed { return false }
            if p < pattern.count && (pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t])) {
                t += 1
                p += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if let starPosition = star {
                p = starPosition + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// The `@type` name of a value.
    static func typeName(_ value: Value) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .binary: "binary"
        case .timestamp: "timestamp"
        case .decimal128: "decimal"
        case .objectId: "objectid"
        case .uuid: "uuid"
        case .link: "object"
        case .list, .set: "list"
        case .dictionary: "dictionary"
        }
    }

    /// Whether a `@type` value matches a type name given in a query (synonyms and `numeric`).
    static func typeMatches(_ actual: String, _ wanted: String) -> Bool {
        let wanted = wanted.lowercased()
        let synonyms: [String: Set<String>] = [
            "int": ["int", "integer", "numeric"], "float": ["float", "numeric"], "double": ["double", "numeric"],
            "decimal": ["decimal", "decimal128", "numeric"], "binary": ["binary", "data"],
            "timestamp": ["timestamp", "date"], "objectid": ["objectid"], "object": ["object", "link"],
            "list": ["list", "array", "collection"], "dictionary": ["dictionary", "collection"],
        ]
        return (synonyms[actual] ?? [actual]).contains(wanted)
    }
}
