import StrataEngine

/// How a Swift type is stored: the column kind, optionality and, for links, the object type.
///
/// An implementation detail of ``_Persistable``, public only because the protocol is.
public struct _ColumnDescription: Sendable {
    let type: ValueType
    let collection: CollectionKind
    let isOptional: Bool
    let objectType: ObjectBase.Type?
    let isLinkingObjects: Bool

    init(_ type: ValueType, collection: CollectionKind = .single, isOptional: Bool = false,
         objectType: ObjectBase.Type? = nil, isLinkingObjects: Bool = false) {
        self.type = type
        self.collection = collection
        self.isOptional = isOptional
        self.objectType = objectType
        self.isLinkingObjects = isLinkingObjects
    }

    func optional() -> _ColumnDescription {
        _ColumnDescription(type, collection: collection, isOptional: true, objectType: objectType)
    }

    func inCollection(_ kind: CollectionKind) -> _ColumnDescription {
        _ColumnDescription(type, collection: kind, isOptional: isOptional, objectType: objectType)
    }
}

/// Where a managed value lives: the Realm and, for properties, the object and column.
///
/// An implementation detail of ``_Persistable``.
public struct _ReadContext {
    /// The Realm, unretained: a context is a temporary argument of `_rlmFromStored`, made by a
    /// caller that holds the Realm for the call (an object's handle, a collection's location);
    /// whatever outlives the call (a `List`, a linked object) copies ``realm``, a strong
    /// reference, out of it. Making a context then costs no reference counting on every
    /// property read.
    @usableFromInline let unretainedRealm: Unmanaged<Realm>
    var realm: Realm { unretainedRealm.takeUnretainedValue() }
    @usableFromInline let table: TableKey
    @usableFromInline let object: ObjectKey
    @usableFromInline let column: Int
    /// The parts few contexts have, kept behind one reference that is nil for a plain property:
    /// a plain property's context then holds no reference at all, and making and dropping one
    /// on every property read costs nothing.
    @usableFromInline var rarelySet: RarelySet?

    @usableFromInline final class RarelySet {
        let originProperty: String?
        let path: [NestedKey]

        init(originProperty: String?, path: [NestedKey]) {
            self.originProperty = originProperty
            self.path = path
        }
    }

    /// For a `LinkingObjects` property, the origin property it was declared with.
    var originProperty: String? {
        get { rarelySet?.originProperty }
        set { rarelySet = RarelySet(originProperty: newValue, path: path) }
    }

    /// For a value inside a nested mixed collection, where it is inside the property's value.
    var path: [NestedKey] {
        get { rarelySet?.path ?? [] }
        set { rarelySet = RarelySet(originProperty: originProperty, path: newValue) }
    }

    init(realm: Realm, table: TableKey, object: ObjectKey, column: Int, originProperty: String? = nil,
         path: [NestedKey] = []) {
        self.init(unretained: Unmanaged.passUnretained(realm), table: table, object: object, column: column,
                  originProperty: originProperty, path: path)
    }

    /// A context for a Realm the caller holds for as long as the context is used.
    init(unretained realm: Unmanaged<Realm>, table: TableKey, object: ObjectKey, column: Int,
         originProperty: String? = nil, path: [NestedKey] = []) {
        unretainedRealm = realm
        self.table = table
        self.object = object
        self.column = column
        if originProperty != nil || !path.isEmpty {
            rarelySet = RarelySet(originProperty: originProperty, path: path)
        }
    }

    /// A plain property's context: no origin property, no nested path.
    @inlinable
    init(unretained realm: Unmanaged<Realm>, table: TableKey, object: ObjectKey, column: Int) {
        unretainedRealm = realm
        self.table = table
        self.object = object
        self.column = column
        rarelySet = nil
    }
}

/// The write in progress when a Swift value is converted for storage: it adds linked unmanaged
/// objects and records failures (which cancel the write and are thrown by `write {}`).
///
/// An implementation detail of ``_Persistable``.
public struct _WriteContext {
    /// The Realm, unretained, for the reason ``_ReadContext`` gives: a context is a temporary
    /// argument made by a caller that holds the Realm.
    @usableFromInline let unretainedRealm: Unmanaged<Realm>
    var realm: Realm { unretainedRealm.takeUnretainedValue() }
    let update: Realm.UpdatePolicy
    /// In `create(_:value:update:)`, the keys each dictionary gave, so that updates of existing
    /// objects write only those.
    var givenKeys: GivenKeys?

    init(realm: Realm, update: Realm.UpdatePolicy, givenKeys: GivenKeys? = nil) {
        unretainedRealm = Unmanaged.passUnretained(realm)
        self.update = update
        self.givenKeys = givenKeys
    }
}

/// A type that can be the value of a `@Persisted` property: every type in Realm's type table.
///
/// The requirements are implementation details (their names start with `_rlm`); conform through
/// ``PersistableEnum``, ``CustomPersistable`` or ``FailableCustomPersistable`` instead.
///
/// Generic code can constrain on `PersistedType` as in Realm Swift:
/// `func total<T: _Persistable>(_ values: List<T>) -> T where T.PersistedType: AddableType`.
public protocol _Persistable: _RealmSchemaDiscoverable {
    /// The type the value is stored as: `Self` for the types Realm stores directly, the raw
    /// value type of a ``PersistableEnum``, the persisted type of a ``CustomPersistable``, and
    /// the wrapped type's persisted type, optional, for an optional.
    associatedtype PersistedType: _Persistable = Self
    /// How the type is stored.
    static var _rlmColumn: _ColumnDescription { get }
    /// The value a new object gets when the declaration gives none.
    static func _rlmDefaultValue() -> Self
    /// Whether ``_rlmDefaultValue()`` makes a new value at each call (an `ObjectId`, a `UUID`,
    /// `Date()`), which an unmanaged object must then make once and keep, whoever asks first:
    /// a read, `realm.add`, or `Encodable` (which works on a copy of the property's storage).
    static var _rlmDefaultIsGenerated: Bool { get }
    /// Whether a managed object's property of this type returns the same value object on each
    /// read (`List`, `MutableSet`, `Map`: `object.list === object.list`, as in Realm Swift).
    static var _rlmIsKeptCollection: Bool { get }
    /// Converts a stored value back (for a managed object).
    static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self
    /// Converts the value for storage, adding any unmanaged objects it links to.
    func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value
    /// Converts a loosely typed value (from `Object(value:)`, `create(_:value:)` or
    /// `object["name"] = value`: a dictionary or array for an object, an array for a list, a
    /// compatible number) to this type; nil when it is not a valid value of this type.
    static func _rlmFromAny(_ value: Any) -> Self?
    /// Like `_rlmFromStored`, but nil when the stored value does not convert (an enum raw value
    /// with no case, a failable custom type): an optional property then reads nil.
    static func _rlmFromStoredIfValid(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self?
    /// While a key path is traced, the value a property read returns so the path can go on (a
    /// traced object for links); nil to return the instance's own default.
    static func _rlmTracePlaceholder(_ tracer: KeyPathTracer) -> Self?
    /// The type dynamic access (`object["name"]`, migrations) reads and writes: `Self`, or the
    /// persisted type of a custom-persisted type (`String` for a `URL`), as Realm's schema shows.
    static var _rlmDynamicType: any _Persistable.Type { get }
    /// The value as dynamic access shows it: itself, or its persisted form.
    var _rlmDynamicValue: Any { get }
}

/// A `_Persistable` type that can be the wrapped type of an optional property.
public protocol _PersistableInsideOptional: _Persistable where PersistedType: _PersistableInsideOptional {}

/// A type usable as a primary key: `Int`, `String`, `ObjectId`, `UUID`, their optionals and
/// enums backed by them.
public protocol _PrimaryKey: _Persistable {}

/// A type that may be indexed: `Bool`, integers, `String`, `ObjectId`, `UUID`, `Date`,
/// `AnyRealmValue`, enums, and their optionals.
public protocol _Indexable: _Persistable {}

extension _Persistable {
    public static func _rlmFromAny(_ value: Any) -> Self? { value as? Self }

    public static func _rlmFromStoredIfValid(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self? {
        _rlmFromStored(value, context)
    }

    public static func _rlmTracePlaceholder(_ tracer: KeyPathTracer) -> Self? { nil }

    public static var _rlmDefaultIsGenerated: Bool { false }

    public static var _rlmIsKeptCollection: Bool { false }

    public static var _rlmDynamicType: any _Persistable.Type { Self.self }

    public var _rlmDynamicValue: Any { self }
}
