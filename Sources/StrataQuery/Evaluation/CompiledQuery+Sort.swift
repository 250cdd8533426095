import StrataEngine

/// Sorting a query's matches: the sort values are read once per match, into one flat array,
/// and compared in place; a single numeric sort key is sorted as plain numbers.
extension CompiledQuery {
    /// The sort values of the matches of a scan, gathered while scanning (when every sort key is
    /// a column of the root object), so the sort does not fetch the matching rows again.
    struct SortValues {
        /// The root columns sorted on, in sort order.
        let columns: [Int]
        /// Row-major: `columns.count` values per match, in match order.
        var values: [Value] = []

        /// Appends the sort values of one match, whose row is at `row`.
        @inline(__always)
        mutating func append(_ row: UnsafePointer<Row>) {
            for column in columns { values.append(Row.value(at: row, column: column)) }
        }
    }

    /// A gatherer for this query's sort values, or nil when it has no sort or sorts through a
    /// link (those values are read through the evaluator).
    var sortValueGatherer: SortValues? {
        guard !sort.isEmpty else { return nil }
        var columns: [Int] = []
        for key in sort {
            guard let column = key.path.rootColumn else { return nil }
            columns.append(column)
        }
        return SortValues(columns: columns)
    }

    /// The positions of `keys` in sort order (stable: ties keep their order in `keys`).
    /// `gathered` holds their sort values when the scan collected them.
    ///
    /// - Complexity: O(m log m) comparisons, plus O(m log n) row reads when nothing was gathered.
    func sortedPositions(_ keys: [ObjectKey], gathered: SortValues?, snapshot: Snapshot,
                         evaluator: PredicateEvaluator) -> [Int] {
        let width = sort.count
        var sortValues: [Value]
        if let gathered, gathered.values.count == keys.count * width {
            sortValues = gathered.values
        } else {
            sortValues = []
            sortValues.reserveCapacity(keys.count * width)
            // The rows read together: a scan's matches are ascending, so neighbours share a leaf.
            let rows = sort.contains { $0.path.rootColumn != nil } ? snapshot.table(table)?.rows(keys) : nil
            for (position, key) in keys.enumerated() {
                for sortKey in sort {
                    if let column = sortKey.path.rootColumn, let row = rows?[position] {
                        sortValues.append(row[column])
                    } else {
                        sortValues.append(evaluator.value(of: sortKey.path, key: key))
                    }
                }
            }
        }
        if width == 1, let order = Self.numericOrder(sortValues, ascending: sort[0].ascending) { return order }
        let ascending = sort.map(\.ascending)
        return sortValues.withUnsafeBufferPointer { values in
            keys.indices.sorted { a, b in
                for index in 0..<width {
                    let comparison = values[a * width + index].compare(values[b * width + index])
                    if comparison != 0 { return ascending[index] ? comparison < 0 : comparison > 0 }
                }
                return a < b
            }
        }
    }

    /// The stable order of `values` when they are all integers or all non-NaN doubles (where
    /// `<` orders them as ``Value/compare(_:)`` does), sorted as plain numbers; nil otherwise.
    static func numericOrder(_ values: [Value], ascending: Bool) -> [Int]? {
        if let integers = numbers(values, { if case .int(let value) = $0 { value } else { nil } }) {
            return order(integers, ascending: ascending)
        }
        if let doubles = numbers(values, { if case .double(let value) = $0, !value.isNaN { value } else { nil } }) {
            return order(doubles, ascending: ascending)
        }
        return nil
    }

    private static func numbers<N>(_ values: [Value], _ number: (Value) -> N?) -> [N]? {
        var numbers: [N] = []
        numbers.reserveCapacity(values.count)
        for value in values {
            guard let found = number(value) else { return nil }
            numbers.append(found)
        }
        return numbers
    }

    private static func order<N: Comparable>(_ numbers: [N], ascending: Bool) -> [Int] {
        var pairs = numbers.enumerated().map { (number: $0.element, position: $0.offset) }
        if ascending {
            pairs.sort { $0.number < $1.number || ($0.number == $1.number && $0.position < $1.position) }
        } else {
            pairs.sort { $1.number < $0.number || ($0.number == $1.number && $0.position < $1.position) }
        }
        return pairs.map(\.position)
    }
}
