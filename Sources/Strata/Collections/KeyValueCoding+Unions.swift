import Foundation

// The collection operators of key-value coding that gather values instead of reducing them
// (`@unionOfObjects.name`), as Foundation defines them and Realm Swift's collections accept.

extension KeyValueCoding {
    /// The collection operators that gather the values of a property.
    enum Union: String {
        /// Every non-nil value, duplicates kept, in the collection's order.
        case unionOfObjects = "@unionOfObjects"
        /// Every non-nil value once, first occurrences in the collection's order.
        case distinctUnionOfObjects = "@distinctUnionOfObjects"
        /// The elements of every value that is a collection (a to-many property), duplicates kept.
        case unionOfArrays = "@unionOfArrays"
        /// The elements of every value that is a collection, each once.
        case distinctUnionOfArrays = "@distinctUnionOfArrays"
        /// The elements of every value that is a collection, each once (as for sets).
        case distinctUnionOfSets = "@distinctUnionOfSets"

        var isDistinct: Bool { self != .unionOfObjects && self != .unionOfArrays }
        var flattens: Bool { self != .unionOfObjects && self != .distinctUnionOfObjects }
    }

    /// The values gathered by `operation` from `values` (one per element; `NSNull` counts as
    /// nil and is left out).
    ///
    /// - Complexity: O(n) in the number of values gathered.
    static func union(_ operation: Union, _ values: [Any]) -> [Any] {
        let present = values.filter { !($0 is NSNull) }
        let gathered = operation.flattens ? present.flatMap(elements(of:)) : present
        guard operation.isDistinct else { return gathered }
        var seen = Set<AnyHashable>()
        return gathered.filter { value in
            guard let key = value as? AnyHashable else { return true }
            return seen.insert(key).inserted
        }
    }

    /// The elements of a collection value (a `List`, `MutableSet`, `Results` or array), or the
    /// value itself.
    private static func elements(of value: Any) -> [Any] {
        switch value {
        case let collection as any RealmCollection: return gather(collection)
        case let array as [Any]: return array
        default: return [value]
        }
    }

    private static func gather<C: RealmCollection>(_ collection: C) -> [Any] {
        collection.map { KeyValueCoding.flattened($0) ?? NSNull() }
    }
}
