import StrataSupport

extension Snapshot {
    /// Adds a table read from a checkpoint (its rows, indexes and backlinks as read).
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming `path` when the key or the name is taken.
    mutating func installLoadedTable(_ table: Table, path: String) throws {
        guard tables[table.key] == nil, tableNames[table.schema.name] == nil else {
            throw StrataError(.corruptFile, "the catalog of \(path) names table \(table.schema.name) (\(table.key)) "
                                  + "twice", path: path)
        }
        tables[table.key] = table
        tableNames[table.schema.name] = table.key
        nextTableKey = max(nextTableKey, table.key.rawValue + 1)
    }
}
