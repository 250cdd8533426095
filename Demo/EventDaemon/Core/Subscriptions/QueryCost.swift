import Strata
import StrataQuery

/// The static bound on a subscription query's cost, checked before it runs: the query's length,
/// the length of every string operand of `LIKE`, `CONTAINS`, `BEGINSWITH` and `ENDSWITH`, and
/// the total length of those operands over the whole query (each costs up to text length ×
/// pattern length per object for `CONTAINS`, `BEGINSWITH` and `ENDSWITH`, text length ×
/// ⌈pattern length / 64⌉ for `LIKE`, so a query of many patterns each within the bound costs
/// their sum). The dynamic bound is the CPU budget (``DaemonLimits/subscriptionBudgetMillis``
/// per commit, ``DaemonLimits/initialBudgetMillis`` for the initial result).
enum QueryCost {
    /// Refuses a query longer than ``DaemonLimits/maxQueryBytes``, with a pattern longer than
    /// ``DaemonLimits/maxPatternLength``, or whose patterns add up to more than
    /// ``DaemonLimits/maxTotalPatternLength``. A query that does not parse passes: running it
    /// reports the parse error with its position.
    ///
    /// - Throws: ``IngestRejection`` `query_too_long`, `pattern_too_long` or `patterns_too_long`.
    static func check(query: String, sort: String?, limits: DaemonLimits) throws(IngestRejection) {
        let bytes = query.utf8.count + (sort?.utf8.count ?? 0)
        guard bytes <= limits.maxQueryBytes else { throw .queryTooLong(bytes, limit: limits.maxQueryBytes) }
        guard let parsed = try? RQLParser.parse(query) else { return }
        let lengths = patternLengths(in: parsed.predicate)
        let longest = lengths.max() ?? 0
        guard longest <= limits.maxPatternLength else {
            throw .patternTooLong(longest, limit: limits.maxPatternLength)
        }
        let total = lengths.reduce(0, +)
        guard total <= limits.maxTotalPatternLength else {
            throw .patternsTooLong(total, count: lengths.count, limit: limits.maxTotalPatternLength)
        }
    }

    /// The length of every string operand of a pattern operator anywhere in `predicate`, in
    /// characters (Unicode scalars; bytes for binary operands), in the order they appear.
    ///
    /// - Complexity: O(size of the predicate).
    static func patternLengths(in predicate: QueryPredicate) -> [Int] {
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
