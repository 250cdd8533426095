import StrataQuery

// Aggregates and sorting over the values of a map of primitives (`Map<String, Int>`), as Realm
// Swift's `RealmKeyedCollection` offers them. An unmanaged map's aggregates are computed in
// memory, as Realm's are; only a managed one can be sorted (queried).

extension RealmKeyedCollection where Value.PersistedType: MinMaxType {
    /// The smallest value, or nil when the map has no non-nil values.
    ///
    /// - Complexity: O(n).
    public func min() -> Value? { realm == nil ? ValueAggregation.aggregate(.min, of: values) : _valuesAsResults.min() }

    /// The largest value, or nil when the map has no non-nil values.
    ///
    /// - Complexity: O(n).
    public func max() -> Value? { realm == nil ? ValueAggregation.aggregate(.max, of: values) : _valuesAsResults.max() }
}

extension RealmKeyedCollection where Value.PersistedType: AddableType {
    /// The sum of the values; zero when the map has no non-nil values.
    ///
    /// - Complexity: O(n).
    public func sum() -> Value {
        guard realm == nil else { return _valuesAsResults.sum() }
        return ValueAggregation.aggregate(.sum, of: values) ?? Value._rlmDefaultValue()
    }

    /// The average of the values, as `T`, or nil when the map has no non-nil values.
    ///
    /// - Complexity: O(n).
    public func average<T: _Persistable>() -> T? where T.PersistedType: AddableType {
        realm == nil ? ValueAggregation.aggregate(.avg, of: values) : _valuesAsResults.average()
    }
}

extension RealmKeyedCollection where Value.PersistedType: SortableType {
    /// The values sorted, as Realm Swift's `sorted(ascending:)` on a map of primitives.
    ///
    /// - Complexity: O(1) to create; O(n log n) when read.
    public func sorted(ascending: Bool = true) -> Results<Value> { _valuesAsResults.sorted(ascending: ascending) }
}
