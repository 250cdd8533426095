@_spi(Reflection) import Swift
import StrataEngine
import StrataSupport

/// One `@Persisted` property of a model class, as schema discovery found it.
/// Where a property's `Persisted` storage is inside an instance of its class (see
/// ``ObjectBase/address(of:)``).
protocol PersistedStorageLocation {
    /// The byte offset of the property's `Persisted` storage inside an instance.
    var offset: Int { get }
}

struct PropertyInfo: PersistedStorageLocation, @unchecked Sendable {
    // Safety: every field is an immutable value; `accessor` is a metatype of a generic struct
    // (`Persisted<V>`), which carries no state.
    /// The property's name (the declaration without the wrapper's underscore).
    let name: String
    /// The name of the column the property is stored in: `name`, unless the class's
    /// `propertiesMapping()` gives another.
    var columnName: String
    /// The byte offset of the property's `Persisted` storage inside an instance.
    let offset: Int
    /// Access to the storage at that offset.
    let accessor: any PersistedAccessor.Type
    /// How the value is stored.
    let column: _ColumnDescription
    var isIndexed: Bool
    var isPrimaryKey: Bool
    /// For `LinkingObjects`, the property of the origin type that links here.
    let originProperty: String?

    /// Whether the property is computed from backlinks rather than stored.
    var isLinkingObjects: Bool { column.isLinkingObjects }

    /// The class name of linked objects, for links and collections of links.
    var objectClassName: String? { column.objectType?.className() }

    /// The engine column this property is stored in.
    var columnSchema: ColumnSchema {
        ColumnSchema(columnName, column.objectType == nil ? column.type : .link, collection: column.collection,
                     isOptional: column.isOptional, linkTarget: objectClassName,
                     isIndexed: isIndexed && !isPrimaryKey)
    }
}

/// What adding an unmanaged object reads of one of its properties: plain values only, so that
/// walking them copies no `PropertyInfo` (whose strings a copy retains and releases, for every
/// property of every object added).
struct InsertedProperty: PersistedStorageLocation, @unchecked Sendable {
    // Safety: immutable plain values; `accessor` is a metatype of a generic struct, as in
    // `PropertyInfo`.
    /// How an insertion takes the property's value.
    enum Kind {
        /// Computed from backlinks: not stored.
        case linkingObjects
        /// A link, a collection of links or a mixed value: set once the object has a key (it may
        /// link back to the object).
        case deferred
        /// A value stored as it is converted.
        case plain
    }

    let kind: Kind
    /// The byte offset of the property's `Persisted` storage inside an instance.
    let offset: Int
    /// Access to the storage at that offset.
    let accessor: any PersistedAccessor.Type

    init(_ property: PropertyInfo) {
        kind = property.isLinkingObjects ? .linkingObjects
            : property.column.objectType != nil || property.column.type == .mixed ? .deferred : .plain
        offset = property.offset
        accessor = property.accessor
    }
}

/// What schema discovery learned about one model class: its name, its persisted properties in
/// declaration order (superclass first), its primary key and whether it is embedded.
///
/// Built once per class by reflection (`Mirror` over the `@Persisted` properties of a fresh
/// instance, with their storage offsets from the runtime's field metadata) and cached.
final class ClassInfo: Sendable {
    let type: ObjectBase.Type
    let className: String
    let properties: [PropertyInfo]
    let primaryKey: Int?
    let isEmbedded: Bool
    let propertyIndex: [String: Int]
    /// Each property's storage offset, in property order: what binding an accessor reads (without
    /// copying each `PropertyInfo`).
    let propertyOffsets: [Int]
    /// Each property as adding an unmanaged object reads it, in property order (see
    /// ``InsertedProperty``).
    let insertedProperties: [InsertedProperty]
    /// The indices of the stored collection properties (`List`, `MutableSet`, `Map`): the
    /// properties whose unmanaged collection becomes the managed one when an object is added
    /// (see ``ManagedInPlace``).
    let collectionProperties: [Int]
    /// The indices of the properties holding one link or one mixed value: the unmanaged values
    /// an added object lets go of (see `Realm.adoptUnmanagedState(of:in:key:)`).
    let singleLinkProperties: [Int]
    /// Whether an accessor of this class holds nothing but its binding: an `Object` subclass
    /// whose stored properties (its own and its superclasses' below `Object`) are all
    /// `@Persisted`. An iteration may then rebind an accessor nothing else references to the next
    /// object instead of making a new one (see `AccessorRecycler`): no state of the previous
    /// object can show through.
    let accessorsAreRecyclable: Bool
    /// Whether a property's type makes its default anew at each call (an `ObjectId`, a `UUID`,
    /// `Date()`): an accessor of this class is then made under ``AccessorConstruction`` so that
    /// its properties skip the box an unmanaged object's keep such a default in. Other classes'
    /// accessors are made without it.
    let hasGeneratedDefaults: Bool

    private init(type: ObjectBase.Type, properties: [PropertyInfo], primaryKey: Int?, onlyPersistedFields: Bool) {
        self.type = type
        accessorsAreRecyclable = onlyPersistedFields && type is Object.Type
        hasGeneratedDefaults = properties.contains { $0.accessor.valueType._rlmDefaultIsGenerated }
        className = type.className()
        self.properties = properties
        propertyOffsets = properties.map(\.offset)
        insertedProperties = properties.map(InsertedProperty.init)
        collectionProperties = properties.indices.filter {
            !properties[$0].isLinkingObjects && properties[$0].column.collection != .single
        }
        singleLinkProperties = properties.indices.filter {
            !properties[$0].isLinkingObjects && properties[$0].column.collection == .single
                && (properties[$0].column.objectType != nil || properties[$0].column.type == .mixed)
        }
        self.primaryKey = primaryKey
        isEmbedded = type is EmbeddedObject.Type
        propertyIndex = Dictionary(uniqueKeysWithValues: properties.enumerated().map { ($1.name, $0) })
    }

    /// The stored (non-computed) properties.
    var storedProperties: [PropertyInfo] { properties.filter { !$0.isLinkingObjects } }

    /// The engine schema of the class's table.
    var tableSchema: TableSchema {
        TableSchema(name: className, columns: storedProperties.map(\.columnSchema),
                    primaryKey: primaryKey.map { properties[$0].columnName }, isEmbedded: isEmbedded)
    }

    private static let cache = LockedValueBox<[ObjectIdentifier: ClassInfo]>([:])

    /// Every class whose schema has been discovered in this process.
    static var knownClasses: [ClassInfo] { cache.withLockedValue { Array($0.values) } }

    /// The schema of `type`, discovering it on first use.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidSchema` for two primary keys, a non-optional
    ///   link, or a primary key on an embedded object.
    static func of(_ type: ObjectBase.Type) throws -> ClassInfo {
        if let known = cache.withLockedValue({ $0[ObjectIdentifier(type)] }) { return known }
        let info = try discover(type)
        let registered = cache.withLockedValue { cache in
            if let raced = cache[ObjectIdentifier(type)] { return raced }
            cache[ObjectIdentifier(type)] = info
            return info
        }
        ColumnMapping.register(registered)
        return registered
    }

    /// `of(_:)` for a class the caller knows is valid (its schema was already checked when the
    /// Realm opened or when it was first used); traps with the schema error otherwise.
    static func known(_ type: ObjectBase.Type) -> ClassInfo {
        do {
            return try of(type)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    private static func discover(_ type: ObjectBase.Type) throws -> ClassInfo {
        // The base classes are not models: `realm.objects(Object.self)` is refused, as in Realm.
        if type == Object.self || type == EmbeddedObject.self || type == ObjectBase.self {
            throw Realm.Error(Realm.Error.invalidSchema, "Object type '\(type.className())' is not managed by the "
                                  + "Realm: it is the base class of models, not a model")
        }
        var fields: [String: (offset: Int, accessor: any PersistedAccessor.Type)] = [:]
        // `.classType` is the stdlib's `_EachFieldOptions(rawValue: 1 << 0)`; spelled out because the
        // static property is not concurrency-safe.
        var unwrapped: [(name: String, type: Any.Type)] = []
        var storedFields = 0
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, offset, fieldType, _ in
            storedFields += 1
            if let accessor = fieldType as? any PersistedAccessor.Type {
                fields[String(cString: name)] = (offset, accessor)
            } else if fieldType is any _Persistable.Type {
                unwrapped.append((String(cString: name), fieldType))
            }
            return true
        }
        let prototype = type.init()
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        var properties: [PropertyInfo] = []
        let base = Unmanaged.passUnretained(prototype).toOpaque()
        let children = mirrors.flatMap(\.children)
        for child in children {
            guard let label = child.label, label.hasPrefix("_"), let field = fields[label] else { continue }
            let name = String(label.dropFirst())
            let declaration = field.accessor.declaration(at: base.advanced(by: field.offset))
            let column = field.accessor.column
            properties.append(PropertyInfo(
                name: name, columnName: name, offset: field.offset, accessor: field.accessor, column: column,
                isIndexed: declaration.indexed, isPrimaryKey: declaration.primaryKey,
                originProperty: declaration.origin))
        }
        let className = type.className()
        func invalid(_ message: String) -> Realm.Error { Realm.Error(Realm.Error.invalidSchema, message) }
        try LegacyDeclarations.rejectUnwrapped(unwrapped, of: type, children: children,
                                               hasPersistedProperties: !properties.isEmpty)
        try LegacyDeclarations.read(from: type).apply(to: &properties, className: className)
        try ColumnMapping.apply(type.propertiesMapping(), to: &properties, className: className)
        let keys = properties.indices.filter { properties[$0].isPrimaryKey }
        if keys.count > 1 {
            throw invalid("Properties '\(properties[keys[0]].name)' and '\(properties[keys[1]].name)' are both "
                          + "marked as the primary key of '\(className)'.")
        }
        if let key = keys.first, type is EmbeddedObject.Type {
            throw invalid("Embedded object type '\(className)' cannot have a primary key ('\(properties[key].name)').")
        }
        // A link must be optional; a type projected onto an embedded object (CGPoint) need not.
        for property in properties where property.accessor.valueType is ObjectBase.Type {
            throw invalid("Object property '\(property.name)' of '\(className)' must be marked as optional.")
        }
        // The field walk includes the superclasses' fields, `Object`'s and `ObjectBase`'s among them.
        let onlyPersisted = storedFields == fields.count + fieldCount(of: Object.self)
        return ClassInfo(type: type, properties: properties, primaryKey: keys.first, onlyPersistedFields: onlyPersisted)
    }

    /// The number of stored fields of `type`, its superclasses' included.
    private static func fieldCount(of type: AnyClass) -> Int {
        var count = 0
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { _, _, _, _ in
            count += 1
            return true
        }
        return count
    }
}
