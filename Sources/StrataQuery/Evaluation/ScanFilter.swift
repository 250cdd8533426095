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

        /// The relative cost of testing the term (see ``ScanFilter/init(_:)``).
        var cost: Int {
            switch self {
            case .int: 0
            case .string: 1
            case .other: 2
            }
        }

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
        // A conjunction's answer does not depend on the order of its terms: the cheapest go
        // first (integer comparisons, then strings, then the rest), so that the costlier ones
        // test only the rows still in the running.
        self.terms = ContiguousArray(terms.enumerated().sorted { ($0.element.cost, $0.offset) < ($1.element.cost, $1.offset) }
            .map(\.element))
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

    /// Calls `body` with the index of each row of `rows` (a leaf's) that satisfies every term,
    /// in order. When the leaf's rows are exactly one ``RowBlock``'s, each term is tested down
    /// its column (a loop over adjacent numbers or strings), a leaf at a time; otherwise each
    /// row is tested in turn, a few rows ahead prefetched.
    @inline(__always)
    func forEachMatch(in rows: UnsafeBufferPointer<Row>, _ body: (Int) throws -> Void) rethrows {
        if let block = Self.wholeBlock(rows) {
            var mask = block._withUnsafeGuaranteedRef { block in
                terms.withUnsafeBufferPointer { terms in
                    var mask = rows.count == 64 ? UInt64.max : (1 &<< UInt64(rows.count)) &- 1
                    for term in terms where mask != 0 { mask &= Self.matchMask(term, block, mask) }
                    return mask
                }
            }
            while mask != 0 {
                try body(mask.trailingZeroBitCount)
                mask &= mask &- 1
            }
            return
        }
        guard let base = rows.baseAddress else { return }
        try Row.forEachIndex(prefetching: rows) { index in
            if matches(base + index) { try body(index) }
        }
    }

    /// The block holding `rows`, when they are all of its rows in its order (a leaf packed
    /// whole and unchanged since), not retained; nil otherwise.
    @inline(__always)
    private static func wholeBlock(_ rows: UnsafeBufferPointer<Row>) -> Unmanaged<RowBlock>? {
        // An empty leaf (an empty table's root) may still have an address, with nothing there.
        guard !rows.isEmpty, let base = rows.baseAddress, let (block, first) = Row.packedBlock(at: base), first == 0,
              block._withUnsafeGuaranteedRef({ $0.count }) == rows.count else { return nil }
        let expected = block.toOpaque()
        for index in 1..<rows.count {
            guard let (other, position) = Row.packedBlock(at: base + index), other.toOpaque() == expected,
                  position == index else { return nil }
        }
        return block
    }

    /// The rows among `candidates` (a bit per position of `block`) for which `term` holds.
    private static func matchMask(_ term: Term, _ block: RowBlock, _ candidates: UInt64) -> UInt64 {
        var mask: UInt64 = 0
        switch term {
        case .int(let column, let op, let constant):
            if let numbers = block.ints(column: column) {
                for position in 0..<block.count where ValueComparison.holds(numbers[position], op, constant) {
                    mask |= 1 &<< UInt64(position)
                }
                let nulls = block.nulls(column: column)
                guard nulls & candidates != 0 else { return mask }
                // Nulls compare as the evaluator compares them.
                let nullHolds = ValueComparison.holds(.null, op, .int(constant), options: [])
                return nullHolds ? mask | nulls : mask & ~nulls
            }
        case .string(let column, let equal, let constant):
            if let strings = block.strings(column: column) {
                // Only the rows still in the running: a comparison of strings costs far more
                // than one of numbers (which is why numbers are tested first).
                let constantBits = StringBits(constant)
                var remaining = candidates
                while remaining != 0 {
                    let position = remaining.trailingZeroBitCount
                    if constantBits.sameUTF8(strings + position, constant) == equal { mask |= 1 &<< UInt64(position) }
                    remaining &= remaining &- 1
                }
                let nulls = block.nulls(column: column)
                guard nulls & candidates != 0 else { return mask }
                let nullHolds = ValueComparison.holds(.null, equal ? .equal : .notEqual, .string(constant), options: [])
                return nullHolds ? mask | nulls : mask & ~nulls
            }
        case .other:
            break
        }
        var remaining = candidates
        while remaining != 0 {
            let position = remaining.trailingZeroBitCount
            if holds(term, block, position) { mask |= 1 &<< UInt64(position) }
            remaining &= remaining &- 1
        }
        return mask
    }

    /// Whether the row at `row` satisfies every term, reading it in place.
    @inline(__always)
    func matches(_ row: UnsafePointer<Row>) -> Bool {
        // Borrowed terms and values: a row's test retains nothing.
        terms.withUnsafeBufferPointer { terms in
            if let (block, position) = Row.packedBlock(at: row) {
                return block._withUnsafeGuaranteedRef { block in
                    for index in terms.indices where !Self.holds(terms[index], block, position) { return false }
                    return true
                }
            }
            return Row.withValues(at: row) { values in
                for index in terms.indices where !Self.holds(terms[index], values) { return false }
                return true
            } ?? false
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

    /// ``holds(_:_:)`` for the packed row at `position` of `block`: numbers and strings read from
    /// their columns in place, anything else as its value.
    @inline(__always)
    private static func holds(_ term: Term, _ block: RowBlock, _ position: Int) -> Bool {
        switch term {
        case .int(let column, let op, let constant):
            guard let stored = block.int(column: column, position: position) else {
                return ValueComparison.holds(block.value(column: column, position: position), op, .int(constant), options: [])
            }
            return ValueComparison.holds(stored, op, constant)
        case .string(let column, let equal, let constant):
            guard let stored = block.string(column: column, position: position) else {
                let value = block.value(column: column, position: position)
                return ValueComparison.holds(value, equal ? .equal : .notEqual, .string(constant), options: [])
            }
            return Value.sameUTF8(stored.pointee, constant) == equal
        case .other(let column, let op, let constant, let options):
            return ValueComparison.holds(block.value(column: column, position: position), op, constant, options: options)
        }
    }
}
