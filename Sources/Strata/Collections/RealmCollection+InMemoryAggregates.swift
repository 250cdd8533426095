import Foundation
import StrataQuery

// Aggregates of an unmanaged collection (`List`, `MutableSet` of an object not yet added), which
// Realm Swift computes with key-value coding over the elements in memory.

extension RealmCollection where Element: ObjectBase {
    /// The aggregate `kind` of the property `property` over the elements, read from the objects
    /// themselves (managed or not) rather than from a Realm: nil values are skipped, an empty
    /// collection has no minimum, maximum or average and sums to 0.
    ///
    /// - Complexity: O(n).
    func inMemoryAggregate<T: _Persistable>(_ kind: AggregateKind, _ property: String) -> T? {
        let values = compactMap { $0.value(forKeyPath: property) }
        let operation: KeyValueCoding.Aggregate = switch kind {
        case .min: .min
        case .max: .max
        case .sum: .sum
        case .avg: .avg
        }
        guard let result = KeyValueCoding.aggregate(operation, values, keyPath: "\(operation.rawValue).\(property)")
        else { return nil }
        return T._rlmFromAny(result)
    }
}
