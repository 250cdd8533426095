import Foundation

// The capability protocols of Realm Swift that generic code constrains on, usually through a
// persisted type: `func total<T: _Persistable>(_ values: List<T>) -> T where T.PersistedType:
// AddableType`. They have no requirements; conforming another type does not make Realm able
// to aggregate or sort it.

/// A type whose values have a minimum and a maximum in a Realm collection: integers, `Float`,
/// `Double`, `Decimal128`, `Date`, `AnyRealmValue` and their optionals, as in Realm Swift.
///
/// ```swift
/// func lowest<C: RealmCollection>(_ values: C) -> C.Element? where C.Element.PersistedType: MinMaxType {
///     values.min()
/// }
/// ```
public protocol MinMaxType {}

/// A type whose values can be summed and averaged in a Realm collection: integers, `Float`,
/// `Double`, `Decimal128`, `AnyRealmValue` and their optionals, as in Realm Swift.
///
/// ```swift
/// func total<T: RealmCollectionValue>(_ values: List<T>) -> T where T.PersistedType: AddableType {
///     values.sum()
/// }
/// ```
public protocol AddableType {}

/// A type whose values a Realm collection can sort by: Realm Swift's integers, `Float`,
/// `Double`, `Decimal128`, `Date`, `Data`, `String`, `AnyRealmValue` and their optionals;
/// Strata also sorts `Bool`, `ObjectId` and `UUID`.
public protocol SortableType {}

extension Int: MinMaxType, AddableType, SortableType {}
extension Int8: MinMaxType, AddableType, SortableType {}
extension Int16: MinMaxType, AddableType, SortableType {}
extension Int32: MinMaxType, AddableType, SortableType {}
extension Int64: MinMaxType, AddableType, SortableType {}
extension Float: MinMaxType, AddableType, SortableType {}
extension Double: MinMaxType, AddableType, SortableType {}
extension Decimal128: MinMaxType, AddableType, SortableType {}
extension AnyRealmValue: MinMaxType, AddableType, SortableType {}
extension Date: MinMaxType, SortableType {}
extension Data: SortableType {}
extension String: SortableType {}
extension Bool: SortableType {}
extension ObjectId: SortableType {}
extension UUID: SortableType {}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
extension Optional: AddableType where Wrapped: AddableType {}
extension Optional: SortableType where Wrapped: SortableType {}
