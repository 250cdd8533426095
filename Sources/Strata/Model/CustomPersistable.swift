import StrataEngine

/// Implementation detail shared by ``CustomPersistable`` and ``FailableCustomPersistable``.
///
/// `PersistedType`, the type the value is stored as, is a primitive or an `EmbeddedObject` subclass.
public protocol _CustomPersistable: _PersistableInsideOptional, RealmCollectionValue {
    /// The stored form of the value.
    var persistableValue: PersistedType { get }
    /// The value of a stored form, or nil when it does not convert.
    static func _rlmConverted(_ persisted: PersistedType) -> Self?
}

/// A type stored as another type, as Realm Swift's `CustomPersistable` (type projection).
///
/// Queries, the schema and the file see `PersistedType`; the model sees `Self`. Switching a
/// property between the two types needs no migration. Works at top level, optional, and in
/// `List`, `MutableSet` and `Map`.
///
/// ```swift
/// extension CGPoint: CustomPersistable {
///     public typealias PersistedType = CGPointObject     // an EmbeddedObject with x and y
///     public init(persistedValue: CGPointObject) { self.init(x: persistedValue.x, y: persistedValue.y) }
///     public var persistableValue: CGPointObject { CGPointObject(value: [x, y]) }
/// }
/// ```
public protocol CustomPersistable: _CustomPersistable {
    /// Creates the value from its stored form.
    init(persistedValue: PersistedType)
}

/// A type stored as another type whose conversion back can fail, as Realm Swift's
/// `FailableCustomPersistable` (e.g. `URL` stored as `String`).
///
/// A stored value that does not convert reads as nil for an optional property and traps with a
/// message for a required one.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// Creates the value from its stored form, or nil.
    init?(persistedValue: PersistedType)
}

extension CustomPersistable {
    public static func _rlmConverted(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
    public static func _rlmDefaultValue() -> Self { Self(persistedValue: PersistedType._rlmDefaultValue()) }
    public static var _rlmDefaultIsGenerated: Bool { PersistedType._rlmDefaultIsGenerated }
}

extension FailableCustomPersistable {
    public static func _rlmConverted(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
    public static func _rlmDefaultValue() -> Self {
        guard let value = Self(persistedValue: PersistedType._rlmDefaultValue()) else {
            preconditionFailure("Failed to default construct a \(Self.self) using the default value for persisted type "
                                + "\(PersistedType.self). This conversion must either succeed, the property must be "
                                + "optional, or you must explicitly specify a default value for the property.")
        }
        return value
    }
    public static var _rlmDefaultIsGenerated: Bool { PersistedType._rlmDefaultIsGenerated }
}

extension _CustomPersistable {
    public static var _rlmColumn: _ColumnDescription { PersistedType._rlmColumn }

    public static var _rlmDynamicType: any _Persistable.Type { PersistedType._rlmDynamicType }

    public var _rlmDynamicValue: Any { persistableValue._rlmDynamicValue }

    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self {
        let persisted = PersistedType._rlmFromStored(value, context)
        guard let converted = _rlmConverted(persisted) else {
            preconditionFailure("Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a "
                                + "non-optional context.")
        }
        return converted
    }

    public static func _rlmFromStoredIfValid(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self? {
        _rlmConverted(PersistedType._rlmFromStored(value, context))
    }

    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { persistableValue._rlmToStored(context) }

    public static func _rlmFromAny(_ value: Any) -> Self? {
        if let typed = value as? Self { return typed }
        return PersistedType._rlmFromAny(value).flatMap(_rlmConverted)
    }

    /// What nil or `NSNull` given for a required property (or a map's value) of this type is:
    /// for a type stored as an object (an optional link underneath), the value made from a new
    /// object, as Realm reads it; for others, nothing (an invalid value). Not for list and set
    /// elements, which Realm refuses there.
    static func _rlmValueForAbsentProperty() -> Self? {
        PersistedType._rlmColumn.objectType != nil ? _rlmConverted(PersistedType._rlmDefaultValue()) : nil
    }
}

/// nil or `NSNull` given where a required `V` is expected (a property, or a map's value): when
/// `V` is a `CustomPersistable` stored as an object, its value made from a new object (see
/// `_CustomPersistable._rlmValueForAbsentProperty()`); nil otherwise.
func projectionForAbsentValue<V>(_ value: Any, as type: V.Type) -> V? {
    guard let projection = V.self as? any _CustomPersistable.Type, LooseSequence.isAbsent(value) else { return nil }
    return projection._rlmValueForAbsentProperty() as? V
}
