/// The kind of value a column (or each element of a collection column) holds.
package enum ValueType: UInt8, Sendable, Hashable, CaseIterable {
    /// The scalar kinds, one per `Value` case of the same name (`binary` for data, `timestamp`
    /// for dates).
    case bool, int, float, double, string, binary, timestamp, decimal128, objectId, uuid
    /// Any value, including nested lists and dictionaries (Realm's `AnyRealmValue`).
    case mixed
    /// A link to an object of the column's ``ColumnSchema/linkTarget`` table.
    case link

    /// Whether `value` (not null) is of this type.
    func admits(_ value: Value) -> Bool {
        switch (self, value) {
        case (.mixed, _): return true
        case (.bool, .bool), (.int, .int), (.float, .float), (.double, .double), (.string, .string),
             (.binary, .binary), (.timestamp, .timestamp), (.decimal128, .decimal128),
             (.objectId, .objectId), (.uuid, .uuid), (.link, .link):
            return true
        default: return false
        }
    }
}

/// Whether a column holds one value or a collection of them.
package enum CollectionKind: UInt8, Sendable, Hashable {
    /// One value; an ordered list; a set of unique values; a string-keyed dictionary.
    case single, list, set, dictionary
}

/// One column of a table.
package struct ColumnSchema: Hashable, Sendable {
    /// The column's name, unique in its table.
    package var name: String
    /// The type of the value, or of each element of a collection.
    package var type: ValueType
    /// Single value or which collection.
    package var collection: CollectionKind
    /// Whether the value (or each element) may be null.
    package var isOptional: Bool
    /// The name of the linked table for ``ValueType/link`` columns.
    package var linkTarget: String?
    /// Whether the column has a secondary index for equality lookups.
    package var isIndexed: Bool

    /// Creates a column.
    package init(
        _ name: String, _ type: ValueType, collection: CollectionKind = .single, isOptional: Bool = false,
        linkTarget: String? = nil, isIndexed: Bool = false
    ) {
        self.name = name
        self.type = type
        self.collection = collection
        self.isOptional = isOptional
        self.linkTarget = linkTarget
        self.isIndexed = isIndexed
    }

    /// The value a new object gets when none is given: null, or an empty collection.
    ///
    /// Required scalars have no engine default; the model layer always supplies them.
    package var emptyValue: Value {
        switch collection {
        case .single: .null
        case .list: .list([])
        case .set: .set([])
        case .dictionary: .dictionary(ValueMap())
        }
    }
}

/// The schema of one table.
package struct TableSchema: Hashable, Sendable {
    /// The table's name (Realm's class name).
    package var name: String
    /// The columns, in order; a row's values follow this order.
    package var columns: [ColumnSchema] {
        didSet {
            primaryKeyIndex = Self.index(of: primaryKey, in: columns)
            scalarChecks = Self.scalarChecks(of: columns)
            linkColumns = Self.linkColumns(of: columns)
        }
    }
    /// The name of the primary key column, if any.
    package var primaryKey: String? {
        didSet { primaryKeyIndex = Self.index(of: primaryKey, in: columns) }
    }
    /// The index of the primary key column (kept with `columns` and `primaryKey`: every write
    /// asks for it).
    package private(set) var primaryKeyIndex: Int?
    /// Whether objects of this table are embedded: owned by exactly one parent link and
    /// deleted with it.
    package var isEmbedded: Bool
    /// Per column, the whole check of a value for a column that holds one plain scalar (not a
    /// link, a mixed value or a collection); nil for the other columns. Kept with `columns`, so
    /// an insert checks its scalars without copying each column's schema.
    package private(set) var scalarChecks: [ScalarCheck?]
    /// The columns whose values may hold links (link and mixed columns, single or collections),
    /// in order. Kept with `columns`, so that an insertion or an erasure finds them without
    /// copying each column's schema (its name and link target, retained and released per column).
    package private(set) var linkColumns: [Int]

    /// Creates a table schema.
    package init(name: String, columns: [ColumnSchema], primaryKey: String? = nil, isEmbedded: Bool = false) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.isEmbedded = isEmbedded
        primaryKeyIndex = Self.index(of: primaryKey, in: columns)
        scalarChecks = Self.scalarChecks(of: columns)
        linkColumns = Self.linkColumns(of: columns)
    }

    /// The index of the column named `name`.
    ///
    /// - Complexity: O(columns).
    package func columnIndex(_ name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }

    private static func index(of name: String?, in columns: [ColumnSchema]) -> Int? {
        name.flatMap { name in columns.firstIndex { $0.name == name } }
    }

    private static func linkColumns(of columns: [ColumnSchema]) -> [Int] {
        columns.indices.filter { columns[$0].type == .link || columns[$0].type == .mixed }
    }

    private static func scalarChecks(of columns: [ColumnSchema]) -> [ScalarCheck?] {
        columns.map { column in
            column.collection == .single && column.type != .link && column.type != .mixed
                ? ScalarCheck(type: column.type, isOptional: column.isOptional) : nil
        }
    }
}

/// What a value must be to be stored in a column holding one plain scalar: of the column's
/// type, or null when the column is optional.
package struct ScalarCheck: Hashable, Sendable {
    /// The column's type (never `.link` or `.mixed`).
    let type: ValueType
    /// Whether the column takes null.
    let isOptional: Bool

    /// Whether `value` may be stored in the column.
    @inline(__always)
    func admits(_ value: Value) -> Bool { value.isNull ? isOptional : type.admits(value) }
}
