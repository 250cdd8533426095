import Foundation
import StrataEngine
import StrataQuery

extension Query where T: _QueryCollection {
    /// The number of elements (`@count`).
    public var count: Query<Int> { Query<Int>(.path(appending([.count]))) }
}

extension Query where T: _QueryCollection, T.Element: _Persistable {
    /// The collection holds `value` (`ANY collection == value`).
    public func contains(_ value: T.Element) -> Query<Bool> {
        var element = path
        if element.collectionEnd == nil { element.collectionEnd = element.components.count }
        return Query<Bool>(.predicate(.comparison(.path(element), .equal, QueryArguments.stored(value), [])))
    }

    /// The collection holds any of `values` (`ANY collection IN {values}`).
    public func containsAny<U: Sequence>(in values: U) -> Query<Bool> where U.Element == T.Element {
        var element = path
        if element.collectionEnd == nil { element.collectionEnd = element.components.count }
        return Query<Bool>(.predicate(.inList(element, values.map { QueryArguments.stored($0) })))
    }

    /// The smallest element (`@min`).
    public var min: Query<T.Element> { Query<T.Element>(.path(appending([.aggregate(.min)]))) }
    /// The largest element (`@max`).
    public var max: Query<T.Element> { Query<T.Element>(.path(appending([.aggregate(.max)]))) }
    /// The sum of the elements (`@sum`).
    public var sum: Query<T.Element> { Query<T.Element>(.path(appending([.aggregate(.sum)]))) }
    /// The average of the elements (`@avg`).
    public var avg: Query<T.Element> { Query<T.Element>(.path(appending([.aggregate(.avg)]))) }
}

extension Query where T: _Persistable {
    private func aggregateThroughCollection(_ kind: AggregateKind) -> Query<T> {
        var path = self.path
        guard let end = path.collectionEnd, end < path.components.count else {
            preconditionFailure("\(kind) needs a property of a collection's elements, e.g. $0.dogs.age.\(kind)")
        }
        path.components.insert(.aggregate(kind), at: end)
        path.collectionEnd = nil
        return Query<T>(.path(path))
    }

    /// The smallest value of this property over a to-many relationship: `$0.dogs.age.min`.
    public var min: Query<T> { aggregateThroughCollection(.min) }
    /// The largest value of this property over a to-many relationship.
    public var max: Query<T> { aggregateThroughCollection(.max) }
    /// The sum of this property over a to-many relationship.
    public var sum: Query<T> { aggregateThroughCollection(.sum) }
    /// The average of this property over a to-many relationship.
    public var avg: Query<T> { aggregateThroughCollection(.avg) }
}

extension Query where T: MapQueryable {
    /// The value for `key`: `$0.scores["math"] > 5`.
    public subscript(key: String) -> Query<T.MapValue> { Query<T.MapValue>(.path(appending([.mapKey(key)]))) }
    /// The keys (`@keys`): comparisons match any key.
    public var keys: Query<String> { Query<String>(.path(appending([.keys], collection: true))) }
    /// The values (`@values`): comparisons match any value.
    public var values: Query<T.MapValue> { Query<T.MapValue>(.path(appending([.values], collection: true))) }
    /// The number of entries.
    public var count: Query<Int> { Query<Int>(.path(appending([.count]))) }
}

/// Implementation detail: lets queries reach a `Map`'s keys and values.
public protocol MapQueryable {
    /// The map's value type.
    associatedtype MapValue
}

extension Map: MapQueryable {
    /// The map's value type.
    public typealias MapValue = Value
}

extension Query where T == AnyRealmValue {
    /// The query of an element of a nested list: `$0.mixed[0]`.
    public subscript(index: Int) -> Query<AnyRealmValue> { Query<AnyRealmValue>(.path(appending([.mapKey(String(index))]))) }
    /// The query of an entry of a nested dictionary: `$0.mixed["key"]`.
    public subscript(key: String) -> Query<AnyRealmValue> { Query<AnyRealmValue>(.path(appending([.mapKey(key)]))) }
}
