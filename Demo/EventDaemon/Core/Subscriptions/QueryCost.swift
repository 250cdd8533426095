@_spi(StrataDaemon) import StrataQuery

/// The static bound on a subscription query's cost, checked before it runs: the query's length,
/// the length of every string operand of `LIKE`, `CONTAINS`, `BEGINSWITH` and `ENDSWITH`, and
/// the total length of those operands over the whole query (`QueryPatterns` says what each
/// costs, so a query of many patterns each within the bound costs their sum). The dynamic bound
/// is the CPU budget (``DaemonLimits/subscriptionBudgetMillis`` per commit,
/// ``DaemonLimits/initialBudgetMillis`` for the initial result).
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
        guard let lengths = QueryPatterns.operandLengths(in: query) else { return }
        let longest = lengths.max() ?? 0
        guard longest <= limits.maxPatternLength else {
            throw .patternTooLong(longest, limit: limits.maxPatternLength)
        }
        let total = lengths.reduce(0, +)
        guard total <= limits.maxTotalPatternLength else {
            throw .patternsTooLong(total, count: lengths.count, limit: limits.maxTotalPatternLength)
        }
    }
}
