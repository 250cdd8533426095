import StrataEngine

/// The kind of a property, as Realm Swift's `PropertyType`.
public enum PropertyType: Int, Sendable, CustomStringConvertible {
    /// An integer of any width (`Int`, `Int8` … `Int64`).
    case int = 0
    /// A `Bool`.
    case bool = 1
    /// A `String`.
    case string = 2
    /// `Data`.
    case data = 3
    /// An `AnyRealmValue`.
    case any = 9
    /// A `Date`.
    case date = 4
    /// A `Float`.
    case float = 5
    /// A `Double`.
    case double = 6
    /// A link to an object (or an embedded object).
    case object = 7
    /// `LinkingObjects`: the objects linking to this one through a property.
    case linkingObjects = 8
    /// An `ObjectId`.
    case objectId = 10
    /// A `Decimal128`.
    case decimal128 = 11
    /// A `UUID`.
    case UUID = 12

    init(_ column: _ColumnDescription) {
        if column.isLinkingObjects {
            self = .linkingObjects
            return
        }
        if column.objectType != nil {
            self = .object
            return
        }
        switch column.type {
        case .bool: self = .bool
        case .int: self = .int
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .binary: self = .data
        case .timestamp: self = .date
        case .decimal128: self = .decimal128
        case .objectId: self = .objectId
        case .uuid: self = .UUID
        case .mixed: self = .any
        case .link: self = .object
        }
    }

    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .string: "string"
        case .data: "data"
        case .any: "mixed"
        case .date: "date"
        case .float: "float"
        case .double: "double"
        case .object: "object"
        case .linkingObjects: "linking objects"
        case .objectId: "object id"
        case .decimal128: "decimal128"
        case .UUID: "uuid"
        }
    }
}

/// One property of an object schema, as Realm Swift's `Property`.
public struct Property: Sendable, Equatable, CustomStringConvertible {
    /// The property's name.
    public let name: String
    /// The name of the column the file stores the property in: ``name``, unless the class's
    /// `propertiesMapping()` names another.
    public let columnName: String
    /// The property's type (for collections, the element type).
    public let type: PropertyType
    /// Whether the property (or each element) may be nil.
    public let isOptional: Bool
    /// Whether the property has a secondary index.
    public let isIndexed: Bool
    /// Whether the property is the primary key.
    public let isPrimary: Bool
    /// Whether the property is a `List`.
    public let isArray: Bool
    /// Whether the property is a `MutableSet`.
    public let isSet: Bool
    /// Whether the property is a `Map`.
    public let isMap: Bool
    /// The class name of linked objects, for object properties and collections of objects.
    public let objectClassName: String?
    /// For linking objects, the property of `objectClassName` that links here.
    public let linkOriginPropertyName: String?

    init(_ info: PropertyInfo) {
        name = info.name
        columnName = info.columnName
        type = PropertyType(info.column)
        isOptional = info.column.isOptional
        isIndexed = info.isIndexed || info.isPrimaryKey
        isPrimary = info.isPrimaryKey
        isArray = info.column.collection == .list && !info.isLinkingObjects
        isSet = info.column.collection == .set
        isMap = info.column.collection == .dictionary
        objectClassName = info.objectClassName
        linkOriginPropertyName = info.originProperty
    }

    init(name: String, column: ColumnSchema, isPrimary: Bool) {
        self.name = name
        columnName = column.name
        let described = _ColumnDescription(column.type, collection: column.collection, isOptional: column.isOptional)
        type = column.linkTarget != nil ? .object : PropertyType(described)
        isOptional = column.isOptional
        isIndexed = column.isIndexed || isPrimary
        self.isPrimary = isPrimary
        isArray = column.collection == .list
        isSet = column.collection == .set
        isMap = column.collection == .dictionary
        objectClassName = column.linkTarget
        linkOriginPropertyName = nil
    }

    /// The property as Realm describes it: its type, the linked class and origin property of a
    /// link, its column name, and its flags, one per line.
    public var description: String {
        func flag(_ value: Bool) -> String { value ? "YES" : "NO" }
        var text = "\(name) {\n\ttype = \(type);\n"
        if let objectClassName {
            text += "\tobjectClassName = \(objectClassName);\n\tlinkOriginPropertyName = \(linkOriginPropertyName ?? "(null)");\n"
        }
        text += "\tcolumnName = \(columnName);\n\tindexed = \(flag(isIndexed));\n\tisPrimary = \(flag(isPrimary));\n"
        text += "\tarray = \(flag(isArray));\n\tset = \(flag(isSet));\n\tdictionary = \(flag(isMap));\n"
        return text + "\toptional = \(flag(isOptional));\n}"
    }
}

/// The schema of one model class, as Realm Swift's `ObjectSchema`.
public struct ObjectSchema: Sendable, Equatable, CustomStringConvertible {
    /// The class name.
    public let className: String
    /// The persisted properties, in declaration order: what the file stores, and what the array
    /// form of ``Object/init(value:)`` and ``Realm/create(_:value:update:)`` fills, in this order.
    public let properties: [Property]
    /// The computed properties (``LinkingObjects``), in declaration order: the file stores
    /// nothing for them, so they are not in ``properties``.
    public let computedProperties: [Property]
    /// The primary key property, if any.
    public let primaryKeyProperty: Property?
    /// Whether objects of the class are embedded.
    public let isEmbedded: Bool

    init(_ info: ClassInfo) {
        className = info.className
        properties = info.storedProperties.map(Property.init)
        computedProperties = info.properties.filter(\.isLinkingObjects).map(Property.init)
        primaryKeyProperty = info.primaryKey.map { Property(info.properties[$0]) }
        isEmbedded = info.isEmbedded
    }

    init(className: String, isEmbedded: Bool, properties: [Property]) {
        self.className = className
        self.properties = properties
        computedProperties = []
        primaryKeyProperty = properties.first { $0.isPrimary }
        self.isEmbedded = isEmbedded
    }

    /// The property named `propertyName`, persisted or computed.
    public subscript(propertyName: String) -> Property? {
        properties.first { $0.name == propertyName } ?? computedProperties.first { $0.name == propertyName }
    }

    /// The class name and each property's description, indented, the persisted ones first, as
    /// Realm describes an object schema.
    public var description: String {
        let lines = (properties + computedProperties).map { "\t" + $0.description.replacingOccurrences(of: "\n", with: "\n\t") }
        return "\(className) {\n" + lines.joined(separator: "\n") + "\n}"
    }
}

/// The schema of a Realm, as Realm Swift's `Schema`.
public struct Schema: Sendable, Equatable, CustomStringConvertible {
    /// One object schema per model class, sorted by class name.
    public let objectSchema: [ObjectSchema]

    init(_ objectSchema: [ObjectSchema]) { self.objectSchema = objectSchema }

    /// The object schema of `className`.
    public subscript(className: String) -> ObjectSchema? { objectSchema.first { $0.className == className } }

    public var description: String { objectSchema.map(\.description).joined(separator: "\n") }
}
