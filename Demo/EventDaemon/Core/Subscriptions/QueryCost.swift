import Strata
import StrataQuery

/// The static bound on a subscription query's cost, checked before it runs: the query's length,
/// and the length of every string operand of `LIKE`, `CONTAINS`, `BEGINSWITH` and `ENDSWITH`
/// (whose evaluation costs up to text length × pattern length per object). The dynamic bound
/// is the per-commit budget (``DaemonLimits/subscriptionBudgetMillis``).
enum QueryCost {
    /// Refuses a query longer than ``DaemonLimits/maxQueryBytes`` or with a pattern longer than
    /// ``DaemonLimits/maxPatternLength``. A query that does not parse passes: running it reports
    /// the parse error with its position.
    ///
    /// - Throws: ``IngestRejection`` `query_too_long` or `pattern_too_long`.
    static func check(query: String, sort: String?, limits: DaemonLimits) throws(IngestRejection) {
        let bytes = query.utf8.count + (sort?.utf8.count ?? 0)
        guard bytes <= limits.maxQueryBytes else { throw .queryTooLong(bytes, limit: limits.maxQueryBytes) }
        guard let parsed = try? RQLParser.parse(query) else { return }
        let longest = longestPattern(in: parsed.predicate)
        guard longest <= limits.maxPatternLength else {
            throw .patternTooLong(longest, limit: limits.maxPatternLength)
        }
    }

    /// The longest string operand of a pattern operator anywhere in `predicate` (0 if none).
    ///
    /// - Complexity: O(size of the predicate).
    static func longestPattern(in predicate: QueryPredicate) -> Int {
        switch predicate {
        case .constant, .between, .inList, .geoWithin:
            return 0
        case .and(let parts), .or(let parts):
            return parts.map(longestPattern(in:)).max() ?? 0
        case .not(let inner):
            return longestPattern(in: inner)
        case .comparison(let comparison):
            let nested = max(subqueries(comparison.left), subqueries(comparison.right))
            switch comparison.op {
            case .like, .contains, .beginsWith, .endsWith:
                return max(nested, length(of: comparison.left), length(of: comparison.right))
            default:
                return nested
            }
        }
    }

    private static func length(of operand: Operand) -> Int {
        switch operand {
        case .value(.string(let string)): string.unicodeScalars.count
        case .value(.binary(let bytes)): bytes.count
        case .list(let operands): operands.map(length(of:)).max() ?? 0
        default: 0
        }
    }

    private static func subqueries(_ operand: Operand) -> Int {
        switch operand {
        case .subqueryCount(_, _, let predicate): longestPattern(in: predicate)
        case .list(let operands): operands.map(subqueries).max() ?? 0
        default: 0
        }
    }
}
