import StrataSupport

extension Snapshot {
    /// Adds a table read from a checkpoint (its rows, indexes and backlinks as read).
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming `path` when the key or the name is taken,
    ///   or the key is the largest one (never handed out: the next key would overflow).
    mutating func installLoadedTable(_ table: Table, path: String) throws {
        guard tables[table.key] == nil, tableNames[table.schema.name] == nil else {
            throw StrataError(.corruptFile, "the catalog of \(path) names table \(table.schema.name) (\(table.key)) "
                                  + "twice", path: path)
        }
        guard table.key.rawValue < UInt32.max else {
            throw StrataError(.corruptFile, "the catalog of \(path) names table \(table.schema.name) with the "
                                  + "out-of-range key \(table.key)", path: path)
        }
        tables[table.key] = table
        tableNames[table.schema.name] = table.key
        nextTableKey = max(nextTableKey, table.key.rawValue + 1)
    }
}
