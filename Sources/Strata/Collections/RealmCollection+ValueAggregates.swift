import Foundation
import StrataEngine
import StrataQuery

// Aggregates over the values of a collection of primitives (`List<Int>`, `MutableSet<Date?>`,
// `Results<AnyRealmValue>`), as Realm Swift's `min()`, `max()`, `sum()` and `average()`.

extension RealmCollection where Element.PersistedType: MinMaxType {
    /// The smallest value, or nil when the collection has no non-nil values.
    ///
    /// - Complexity: O(n).
    public func min() -> Element? { aggregateOfValues(.min) }

    /// The largest value, or nil when the collection has no non-nil values.
    ///
    /// - Complexity: O(n).
    public func max() -> Element? { aggregateOfValues(.max) }
}

extension RealmCollection where Element.PersistedType: AddableType {
    /// The sum of the values; zero when the collection has no non-nil values.
    ///
    /// - Complexity: O(n).
    public func sum() -> Element { aggregateOfValues(.sum) ?? Element._rlmDefaultValue() }

    /// The average of the values, as `T` (`Double` for integers, `Decimal128` for decimals), or
    /// nil when the collection has no non-nil values.
    ///
    /// ```swift
    /// let mean: Double? = scores.average()
    /// ```
    ///
    /// - Complexity: O(n).
    public func average<T: _Persistable>() -> T? where T.PersistedType: AddableType { aggregateOfValues(.avg) }
}

extension RealmCollection {
    /// The aggregate of the collection's non-null values, converted to `T`.
    fileprivate func aggregateOfValues<T: _Persistable>(_ kind: AggregateKind) -> T? {
        ValueAggregation.aggregate(kind, of: self)
    }
}

/// Aggregates of values computed in memory: a collection's, and an unmanaged map's.
enum ValueAggregation {
    /// The aggregate of the non-null `values`, converted to `T`.
    static func aggregate<T: _Persistable>(_ kind: AggregateKind, of values: some Sequence) -> T? {
        let values = values.map { QueryArguments.stored($0) }.filter { !$0.isNull }
        let result = QueryArguments.convert(Aggregation.reduce(kind, values), to: T.self)
        let swiftValue: Any
        switch result {
        case .int(let number): swiftValue = number
        case .float(let number): swiftValue = number
        case .double(let number): swiftValue = number
        case .decimal128(let bits): swiftValue = Decimal128(bits)
        case .timestamp(let time): swiftValue = Date(time)
        default: return nil
        }
        return T._rlmFromAny(swiftValue)
    }
}
