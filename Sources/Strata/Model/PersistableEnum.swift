import StrataEngine

/// An enum stored as its raw value, as Realm Swift's `PersistableEnum`.
///
/// ```swift
/// enum Status: String, PersistableEnum { case active, archived }
/// class Task: Object { @Persisted var status: Status }   // defaults to the first case
/// ```
///
/// A stored raw value that matches no case reads as `nil` for an optional property and traps
/// for a required one.
public protocol PersistableEnum: _PersistableInsideOptional, RealmCollectionValue, _Indexable, _PrimaryKey,
    RawRepresentable, CaseIterable where RawValue: _PersistableInsideOptional, PersistedType == RawValue {}

extension PersistableEnum {
    public static var _rlmColumn: _ColumnDescription { RawValue._rlmColumn }

    public static func _rlmDefaultValue() -> Self { allCases.first! }

    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self {
        guard let converted = _rlmFromStoredIfValid(value, context) else {
            preconditionFailure("The stored value \(value) is not a case of \(Self.self)")
        }
        return converted
    }

    public static func _rlmFromStoredIfValid(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self? {
        Self(rawValue: RawValue._rlmFromStored(value, context))
    }

    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { rawValue._rlmToStored(context) }

    public static func _rlmFromAny(_ value: Any) -> Self? {
        if let typed = value as? Self { return typed }
        return RawValue._rlmFromAny(value).flatMap(Self.init(rawValue:))
    }
}
