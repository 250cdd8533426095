/// A type Realm can find in a model's declaration: every type a `@Persisted` property can hold,
/// as Realm Swift's `_RealmSchemaDiscoverable`, for generic code that constrains on it.
///
/// Realm Swift's requirements describe a property to its Objective-C schema; Strata reads the
/// schema through ``_Persistable``, so this protocol has none. Conform through
/// ``PersistableEnum`` or ``CustomPersistable``.
public protocol _RealmSchemaDiscoverable {}

/// A type that can be an element of a Realm collection inside an optional (`List<Int?>`), as
/// Realm Swift's `_RealmCollectionValueInsideOptional`: the persistable scalars, `Object`,
/// `EmbeddedObject`, enums and custom-persisted types.
///
/// ```swift
/// func countNils<T: _RealmCollectionValueInsideOptional>(_ values: List<T?>) -> Int {
///     values.filter { $0 == nil }.count
/// }
/// ```
public protocol _RealmCollectionValueInsideOptional: RealmCollectionValue, _PersistableInsideOptional
where PersistedType: _RealmCollectionValueInsideOptional {}
