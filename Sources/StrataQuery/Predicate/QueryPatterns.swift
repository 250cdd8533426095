/// The pattern operands of a Realm Query Language query, for a service that bounds what a
/// query from the network may cost before it runs it.
///
/// `CONTAINS`, `BEGINSWITH` and `ENDSWITH` cost up to text length × pattern length per object,
/// `LIKE` text length × ⌈pattern length / 64⌉, so a service can refuse a query whose patterns
/// are too long, one by one or together.
///
/// Not part of Strata's API: SPI for the demo daemon in `Demo/`, which imports it with
/// `@_spi(StrataDaemon) import StrataQuery`; it may change in any release.
@_spi(StrataDaemon) public enum QueryPatterns {
    /// The length of every string operand of `LIKE`, `CONTAINS`, `BEGINSWITH` and `ENDSWITH`
    /// anywhere in `query` (subqueries included), in characters (Unicode scalars; bytes for
    /// binary operands), in the order they appear; nil when `query` does not parse (running it
    /// reports the parse error with its position).
    ///
    /// ```swift
    /// QueryPatterns.operandLengths(in: "name LIKE '*ab' OR tag CONTAINS 'xyz'")   // [3, 3]
    /// ```
    ///
    /// - Complexity: O(length of the query).
    @_spi(StrataDaemon) public static func operandLengths(in query: String) -> [Int]? {
        guard let parsed = try? RQLParser.parse(query) else { return nil }
        return patternLengths(in: parsed.predicate)
    }

    private static func patternLengths(in predicate: QueryPredicate) -> [Int] {
        switch predicate {
        case .constant, .between, .inList, .geoWithin:
            return []
        case .and(let parts), .or(let parts):
            return parts.flatMap(patternLengths(in:))
        case .not(let inner):
            return patternLengths(in: inner)
        case .comparison(let comparison):
            let nested = subqueries(comparison.left) + subqueries(comparison.right)
            switch comparison.op {
            case .like, .contains, .beginsWith, .endsWith:
                return nested + lengths(of: comparison.left) + lengths(of: comparison.right)
            default:
                return nested
            }
        }
    }

    private static func lengths(of operand: Operand) -> [Int] {
        switch operand {
        case .value(.string(let string)): [string.unicodeScalars.count]
        case .value(.binary(let bytes)): [bytes.count]
        case .list(let operands): operands.flatMap(lengths(of:))
        default: []
        }
    }

    private static func subqueries(_ operand: Operand) -> [Int] {
        switch operand {
        case .subqueryCount(_, _, let predicate): patternLengths(in: predicate)
        case .list(let operands): operands.flatMap(subqueries)
        default: []
        }
    }
}
