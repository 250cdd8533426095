import Foundation

/// A type that can be an element of a Realm collection (`List`, `MutableSet`, `Map` values,
/// `Results`), as in Realm Swift: the persistable scalars, their optionals, `Object`,
/// `EmbeddedObject` (in lists and maps) and `AnyRealmValue`.
public protocol RealmCollectionValue: _Persistable, Hashable {}

extension Bool: RealmCollectionValue {}
extension Int: RealmCollectionValue {}
extension Int8: RealmCollectionValue {}
extension Int16: RealmCollectionValue {}
extension Int32: RealmCollectionValue {}
extension Int64: RealmCollectionValue {}
extension Float: RealmCollectionValue {}
extension Double: RealmCollectionValue {}
extension String: RealmCollectionValue {}
extension Data: RealmCollectionValue {}
extension Date: RealmCollectionValue {}
extension UUID: RealmCollectionValue {}
extension Object: RealmCollectionValue {}
extension EmbeddedObject: RealmCollectionValue {}
extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue & _PersistableInsideOptional {}

extension Bool: _RealmCollectionValueInsideOptional {}
extension Int: _RealmCollectionValueInsideOptional {}
extension Int8: _RealmCollectionValueInsideOptional {}
extension Int16: _RealmCollectionValueInsideOptional {}
extension Int32: _RealmCollectionValueInsideOptional {}
extension Int64: _RealmCollectionValueInsideOptional {}
extension Float: _RealmCollectionValueInsideOptional {}
extension Double: _RealmCollectionValueInsideOptional {}
extension String: _RealmCollectionValueInsideOptional {}
extension Data: _RealmCollectionValueInsideOptional {}
extension Date: _RealmCollectionValueInsideOptional {}
extension UUID: _RealmCollectionValueInsideOptional {}
extension Decimal128: _RealmCollectionValueInsideOptional {}
extension ObjectId: _RealmCollectionValueInsideOptional {}
extension Object: _RealmCollectionValueInsideOptional {}
extension EmbeddedObject: _RealmCollectionValueInsideOptional {}
