import StrataEngine

/// Sum, average, minimum and maximum of values, as Realm computes them.
package enum Aggregation {
    /// Reduces non-null `values`: `sum` of nothing is 0, `avg`, `min` and `max` of nothing are
    /// null. Sums keep the type of the elements (int, double, decimal); averages are doubles (or
    /// decimals for decimals).
    ///
    /// - Complexity: O(n).
    package static func reduce(_ kind: AggregateKind, _ values: [Value]) -> Value {
        switch kind {
        case .min: return values.min { ValueComparison.order($0, $1).map { $0 < 0 } ?? $0.precedes($1) } ?? .null
        case .max: return values.max { ValueComparison.order($0, $1).map { $0 < 0 } ?? $0.precedes($1) } ?? .null
        case .sum: return sum(values)
        case .avg:
            guard !values.isEmpty else { return .null }
            if values.contains(where: { if case .decimal128 = $0 { true } else { false } }) {
                let total = values.compactMap(ValueComparison.decimal).reduce(Decimal128(), +)
                let average = total / Decimal128(values.count)
                return .decimal128(Decimal128Bits(low: average.bid.low, high: average.bid.high))
            }
            let total = values.compactMap(ValueComparison.number).reduce(0, +)
            return .double(total / Double(values.count))
        }
    }

    private static func sum(_ values: [Value]) -> Value {
        if values.allSatisfy({ if case .int = $0 { true } else { false } }) {
            return .int(values.reduce(Int64(0)) { total, value in
                if case .int(let number) = value { return total &+ number }
                return total
            })
        }
        if values.contains(where: { if case .decimal128 = $0 { true } else { false } }) {
            let total = values.compactMap(ValueComparison.decimal).reduce(Decimal128(), +)
            return .decimal128(Decimal128Bits(low: total.bid.low, high: total.bid.high))
        }
        if values.allSatisfy({ if case .float = $0 { true } else { false } }) {
            return .float(values.compactMap(ValueComparison.number).reduce(0) { $0 + Float($1) })
        }
        return .double(values.compactMap(ValueComparison.number).reduce(0, +))
    }
}
