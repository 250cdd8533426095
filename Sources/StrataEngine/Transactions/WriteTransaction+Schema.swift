import StrataSupport

extension WriteTransaction {
    /// The primary key column types Realm allows.
    private static let primaryKeyTypes: Set<ValueType> = [.int, .string, .objectId, .uuid]

    /// Creates a table.
    ///
    /// - Returns: the new table's key.
    /// - Throws: ``StrataError/Code/invalidInput`` for a duplicate table or column name, or a
    ///   primary key that is not a single int, string, object id or uuid column.
    @discardableResult
    package func createTable(_ schema: TableSchema) throws -> TableKey {
        guard snapshot.tableKey(named: schema.name) == nil else { throw invalid("table \(schema.name) already exists") }
        guard Set(schema.columns.map(\.name)).count == schema.columns.count else {
            throw invalid("table \(schema.name) has two columns with the same name")
        }
        guard schema.columns.count <= maximumCollectionIndex else {
            throw invalid("table \(schema.name) has more columns than a table can have (\(maximumCollectionIndex))")
        }
        if let primaryKey = schema.primaryKey { try validatePrimaryKey(primaryKey, in: schema) }
        let key = TableKey(snapshot.nextTableKey)
        try record(.createTable(key, schema))
        return key
    }

    /// Removes a table after erasing its objects (so links to them are removed and their
    /// embedded objects erased).
    package func removeTable(_ key: TableKey) throws {
        for object in try table(key).objectKeys { try eraseObject(object, in: key) }
        try record(.removeTable(key))
    }

    /// Appends a column; existing objects get `fill` (null or an empty collection by default).
    package func addColumn(_ column: ColumnSchema, to key: TableKey, fill: Value? = nil) throws {
        let table = try table(key)
        guard table.schema.columnIndex(column.name) == nil else {
            throw invalid("\(table.schema.name) already has a column \(column.name)")
        }
        var fill = fill ?? column.emptyValue
        // The fill is in the log even when no object gets it: the log must read it back.
        try fill.requireEncodable(atDepth: 0)
        guard table.schema.columns.count < maximumCollectionIndex else {
            throw invalid("\(table.schema.name) has the most columns a table can have")
        }
        if table.count > 0 {
            fill = try validate(fill, for: column)
            // Every existing object gets `fill`: an embedded object in it would get many owners.
            try requireUnowned(Array(repeating: fill, count: min(table.count, 2)), for: column)
        }
        try record(.addColumn(key, column, fill: fill))
    }

    /// Removes a column; later columns shift down by one.
    package func removeColumn(_ column: Int, from key: TableKey) throws {
        let table = try table(key)
        guard table.schema.columns.indices.contains(column) else { throw invalid("\(table.schema.name) has no column \(column)") }
        if table.schema.primaryKeyIndex == column { try record(.setPrimaryKey(key, nil)) }
        try record(.removeColumn(key, column))
    }

    /// Renames a column.
    package func renameColumn(_ column: Int, of key: TableKey, to name: String) throws {
        let table = try table(key)
        guard table.schema.columns.indices.contains(column) else { throw invalid("\(table.schema.name) has no column \(column)") }
        guard table.schema.columnIndex(name) == nil else { throw invalid("\(table.schema.name) already has a column \(name)") }
        let renamesPrimaryKey = table.schema.primaryKeyIndex == column
        try record(.renameColumn(key, column, name))
        if renamesPrimaryKey { try record(.setPrimaryKey(key, name)) }
    }

    /// Adds or drops the secondary index of a column.
    package func setIndexed(_ indexed: Bool, column: Int, of key: TableKey) throws {
        let table = try table(key)
        guard table.schema.columns.indices.contains(column) else { throw invalid("\(table.schema.name) has no column \(column)") }
        guard table.schema.columns[column].collection == .single || !indexed else {
            throw invalid("a collection column cannot be indexed")
        }
        try record(.setIndexed(key, column, indexed))
    }

    /// Makes the named column the table's primary key (nil removes it).
    ///
    /// - Throws: ``StrataError/Code/duplicatePrimaryKey`` when two objects share a value.
    package func setPrimaryKey(_ name: String?, of key: TableKey) throws {
        let table = try table(key)
        if let name {
            try validatePrimaryKey(name, in: table.schema)
            let column = table.schema.columnIndex(name)!
            var seen = Set<Value>()
            try table.forEachObject { _, row in
                guard seen.insert(row[column]).inserted else {
                    throw StrataError(.duplicatePrimaryKey,
                                      "\(table.schema.name).\(name) has the value \(row[column]) more than once")
                }
            }
        }
        try record(.setPrimaryKey(key, name))
    }

    private func validatePrimaryKey(_ name: String, in schema: TableSchema) throws {
        guard let column = schema.columnIndex(name) else {
            throw invalid("primary key \(name) is not a column of \(schema.name)")
        }
        let type = schema.columns[column]
        guard type.collection == .single, Self.primaryKeyTypes.contains(type.type), !schema.isEmbedded else {
            throw invalid("\(schema.name).\(name) cannot be a primary key: only int, string, object id and uuid "
                          + "properties of top-level objects can")
        }
    }
}
