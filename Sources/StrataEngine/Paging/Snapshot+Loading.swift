import StrataSupport

extension Snapshot {
    /// Adds a table read from a checkpoint: its rows as read, its indexes rebuilt from them.
    /// Call ``rebuildBacklinks()`` once every table is in.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming `path` when the key or the name is
    ///   taken, or a row's value count differs from the schema's column count.
    mutating func installLoadedTable(
        key: TableKey, schema: TableSchema, rows: SortedTree<ObjectKey, Row>, nextObjectKey: Int64, path: String
    ) throws {
        guard tables[key] == nil, tableNames[schema.name] == nil else {
            throw StrataError(.corruptFile, "the catalog of \(path) names table \(schema.name) (\(key)) twice", path: path)
        }
        let columns = schema.columns.count
        var malformed: ObjectKey?
        rows.forEachLeaf { keys, rows in
            for index in rows.indices where malformed == nil && rows[index].values.count != columns {
                malformed = keys[index]
            }
        }
        if let malformed {
            throw StrataError(.corruptFile, "object \(malformed) of \(schema.name) in \(path) does not have the "
                                  + "\(columns) values its schema says", path: path)
        }
        var table = Table(key: key, schema: schema)
        table.rows = rows
        table.nextObjectKey = nextObjectKey
        table.rebuildIndexes()
        tables[key] = table
        tableNames[schema.name] = key
        nextTableKey = max(nextTableKey, key.rawValue + 1)
    }

    /// Rebuilds every table's backlinks from the links its rows hold.
    mutating func rebuildBacklinks() {
        for table in allTables {
            table.forEachObject { object, row in
                forEachLinkColumn(of: table, row) { column, value in
                    updateBacklinks(removing: nil, adding: value,
                                    origin: Backlink(table: table.key, column: column, object: object))
                }
            }
        }
    }
}
