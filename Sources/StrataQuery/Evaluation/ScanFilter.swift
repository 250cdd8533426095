import StrataEngine

/// The shape of most scans, a conjunction of comparisons between properties of the object and
/// constants (`age > 50 AND city == "city-3"`), flattened so that a scan tests each row with a
/// loop over plain terms instead of walking the predicate tree.
///
/// It gives exactly the answers of ``PredicateEvaluator``: a term whose stored value is not of the
/// kind it was compiled for (a null, an int compared with a double) defers to
/// ``ValueComparison/holds(_:_:_:options:)``, the evaluator's own comparison.
struct ScanFilter: Sendable {
    /// One comparison of a root column with a constant.
    enum Term: Sendable {
        case int(column: Int, ComparisonOperator, Int64)
        case string(column: Int, equal: Bool, String)
        case other(column: Int, ComparisonOperator, Value, StringOptions)

        var column: Int {
            switch self {
            case .int(let column, _, _), .string(let column, _, _), .other(let column, _, _, _): column
            }
        }
    }

    let terms: ContiguousArray<Term>

    /// The flat form of `predicate`, or nil when some part of it is more than a root column
    /// compared with a constant.
    init?(_ predicate: CompiledPredicate) {
        var terms = ContiguousArray<Term>()
        guard Self.collect(predicate, into: &terms), !terms.isEmpty else { return nil }
        self.terms = terms
    }

    private static func collect(_ predicate: CompiledPredicate, into terms: inout ContiguousArray<Term>) -> Bool {
        switch predicate {
        case .and(let parts):
            return parts.allSatisfy { collect($0, into: &terms) }
        case .compare(.path(let path), let op, .value(let constant), let options, _, false):
            guard let column = path.rootColumn else { return false }
            switch (constant, op) {
            case (.int(let value), .equal), (.int(let value), .notEqual), (.int(let value), .less),
                 (.int(let value), .lessOrEqual), (.int(let value), .greater), (.int(let value), .greaterOrEqual):
                terms.append(.int(column: column, op, value))
            case (.string(let value), .equal) where options.isEmpty:
                terms.append(.string(column: column, equal: true, value))
            case (.string(let value), .notEqual) where options.isEmpty:
                terms.append(.string(column: column, equal: false, value))
            default:
                terms.append(.other(column: column, op, constant, options))
            }
            return true
        default:
            return false
        }
    }

    /// Whether `row` satisfies every term.
    ///
    /// - Complexity: O(terms).
    @inline(__always)
    func matches(_ row: Row) -> Bool {
        withUnsafePointer(to: row) { matches($0) }
    }

    /// Whether the row at `row` satisfies every term, reading it in place.
    @inline(__always)
    func matches(_ row: UnsafePointer<Row>) -> Bool {
        // Borrowed terms and values: a row's test retains nothing.
        terms.withUnsafeBufferPointer { terms in
            Row.withValues(at: row) { values in
                for index in terms.indices where !Self.holds(terms[index], values) { return false }
                return true
            }
        }
    }

    @inline(__always)
    private static func holds(_ term: Term, _ values: UnsafeBufferPointer<Value>) -> Bool {
        switch term {
        case .int(let column, let op, let constant):
            guard case .int(let stored) = values[column] else {
                return ValueComparison.holds(values[column], op, .int(constant), options: [])
            }
            return ValueComparison.holds(stored, op, constant)
        case .string(let column, let equal, let constant):
            guard case .string(let stored) = values[column] else {
                return ValueComparison.holds(values[column], equal ? .equal : .notEqual, .string(constant), options: [])
            }
            return Value.sameUTF8(stored, constant) == equal
        case .other(let column, let op, let constant, let options):
            return ValueComparison.holds(values[column], op, constant, options: options)
        }
    }
}
