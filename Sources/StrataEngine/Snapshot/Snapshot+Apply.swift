import StrataSupport

extension Snapshot {
    /// Applies one instruction exactly as written, maintaining indexes and backlinks.
    ///
    /// This is the only way a snapshot changes, for new commits and for log replay alike. It
    /// checks that its targets exist (a replayed log from a damaged file must not trap) but not
    /// the rules a transaction enforces (types, uniqueness, cascades).
    ///
    /// - Throws: ``StrataError/Code/invalidInput`` when a target does not exist.
    /// - Complexity: O(log n) for object instructions, plus O(k) for a collection of k elements;
    ///   O(n log n) for schema changes of a table of n objects.
    mutating func apply(_ instruction: Instruction) throws {
        switch instruction {
        case .createTable(let key, let schema):
            guard tables[key] == nil, tableNames[schema.name] == nil else {
                throw Self.missing("table \(schema.name) (\(key)) already exists")
            }
            // The next key comes after it: the largest key is never handed out, so one read from a
            // damaged file is refused rather than overflowing.
            guard key.rawValue < UInt32.max else { throw Self.missing("table key \(key) is out of range") }
            tables[key] = Table(key: key, schema: schema)
            tableNames[schema.name] = key
            nextTableKey = max(nextTableKey, key.rawValue + 1)

        case .removeTable(let key):
            let table = try existing(key)
            table.forEachObject { object, row in
                forEachLinkColumn(of: table, row) { column, value in
                    updateBacklinks(removing: value, adding: nil, origin: Backlink(table: key, column: column, object: object))
                }
            }
            tables[key] = nil
            tableNames[table.schema.name] = nil

        case .addColumn(let key, let column, let fill):
            try mutateSchema(key) { table in
                table.schema.columns.append(column)
                for object in table.rows.keys { table.rows.modifyValue(forKey: object) { $0.values.append(fill) } }
            }
            if fill.containsLink {
                let table = try existing(key)
                let index = table.schema.columns.count - 1
                for object in table.rows.keys {
                    updateBacklinks(removing: nil, adding: fill, origin: Backlink(table: key, column: index, object: object))
                }
            }

        case .removeColumn(let key, let column):
            let table = try existing(key)
            guard table.schema.columns.indices.contains(column) else { throw Self.missing("column \(column) of \(key)") }
            table.forEachObject { object, row in
                updateBacklinks(removing: row[column], adding: nil,
                                origin: Backlink(table: key, column: column, object: object))
            }
            try mutateSchema(key) { table in
                table.schema.columns.remove(at: column)
                for object in table.rows.keys { table.rows.modifyValue(forKey: object) { _ = $0.values.remove(at: column) } }
            }
            try renumberBacklinks(from: key, after: column)

        case .renameColumn(let key, let column, let name):
            try requireColumn(column, of: key)
            try mutateSchema(key) { $0.schema.columns[column].name = name }

        case .setIndexed(let key, let column, let indexed):
            try requireColumn(column, of: key)
            try mutateSchema(key) { $0.schema.columns[column].isIndexed = indexed }

        case .setPrimaryKey(let key, let name):
            try mutateSchema(key) { $0.schema.primaryKey = name }

        case .insertObject(let key, let object, let values):
            var table = try existing(key)
            guard values.count == table.schema.columns.count, !table.contains(object), table.admitsPrimaryKey(of: values) else {
                throw Self.missing("object \(object) cannot be inserted into \(table.schema.name)")
            }
            let row = Row(values)
            tables[key] = nil  // keep the table uniquely referenced while it changes
            table.rows.updateValue(row, forKey: object)
            table.nextObjectKey = max(table.nextObjectKey, object.rawValue + 1)
            table.index(row, as: object, primaryKey: table.schema.primaryKeyIndex)
            tables[key] = table
            forEachLinkColumn(of: table, row) { column, value in
                updateBacklinks(removing: nil, adding: value, origin: Backlink(table: key, column: column, object: object))
            }

        case .eraseObject(let key, let object):
            var table = try existing(key)
            guard let row = table.row(object) else { throw Self.missing("object \(object) of \(table.schema.name)") }
            tables[key] = nil
            table.rows.removeValue(forKey: object)
            table.unindex(row, as: object)
            table.backlinks.removeValue(forKey: object)
            tables[key] = table
            forEachLinkColumn(of: table, row) { column, value in
                updateBacklinks(removing: value, adding: nil, origin: Backlink(table: key, column: column, object: object))
            }

        case .setValue(let path, let value):
            // One lookup of the table for the row and its indexes (the most frequent instruction).
            guard let index = tables.index(forKey: path.table) else { throw Self.missing("table \(path.table)") }
            let old = try Self.setValue(value, at: path, in: &tables.values[index])
            updateBacklinks(removing: old, adding: value, origin: path.backlink)

        case .list(let path, let change):
            let (removed, added) = try modifyValue(at: path) { (value) throws -> (Value?, Value?) in
                guard case .list(var elements) = value else { throw Self.missing("list at \(path)") }
                value = .null
                defer { value = .list(elements) }
                return try Self.apply(change, to: &elements, at: path)
            }
            updateBacklinks(removing: removed, adding: added, origin: path.backlink)

        case .set(let path, let change):
            let (removed, added) = try modifyValue(at: path) { (value) throws -> (Value?, Value?) in
                guard case .set(var elements) = value else { throw Self.missing("set at \(path)") }
                value = .null
                defer { value = .set(elements) }
                switch change {
                case .insert(let element):
                    let (index, found) = elements.setPosition(of: element)
                    if found { return (nil, nil) }
                    elements.insert(element, at: index)
                    return (nil, element)
                case .erase(let element):
                    let (index, found) = elements.setPosition(of: element)
                    guard found else { return (nil, nil) }
                    return (elements.remove(at: index), nil)
                case .clear:
                    defer { elements.removeAll() }
                    return (.list(elements), nil)
                }
            }
            updateBacklinks(removing: removed, adding: added, origin: path.backlink)

        case .dictionary(let path, let change):
            let (removed, added) = try modifyValue(at: path) { (value) throws -> (Value?, Value?) in
                guard case .dictionary(var map) = value else { throw Self.missing("dictionary at \(path)") }
                value = .null
                defer { value = .dictionary(map) }
                switch change {
                case .set(let key, let element):
                    defer { map[key] = element }
                    return (map[key], element)
                case .erase(let key):
                    defer { map[key] = nil }
                    return (map[key], nil)
                case .clear:
                    defer { map = ValueMap() }
                    return (.list(map.values), nil)
                }
            }
            updateBacklinks(removing: removed, adding: added, origin: path.backlink)
        }
    }

    private static func apply(
        _ change: ListChange, to elements: inout [Value], at path: PropertyPath
    ) throws -> (removed: Value?, added: Value?) {
        func check(_ index: Int, _ limit: Int) throws {
            guard index >= 0, index < limit else {
                throw StrataError(.invalidInput, "list index \(index) out of bounds (count \(elements.count)) at \(path)")
            }
        }
        switch change {
        case .insert(let index, let value):
            try check(index, elements.count + 1)
            elements.insert(value, at: index)
            return (nil, value)
        case .erase(let index):
            try check(index, elements.count)
            return (elements.remove(at: index), nil)
        case .set(let index, let value):
            try check(index, elements.count)
            defer { elements[index] = value }
            return (elements[index], value)
        case .move(let from, let to):
            try check(from, elements.count)
            try check(to, elements.count)
            elements.insert(elements.remove(at: from), at: to)
            return (nil, nil)
        case .clear:
            defer { elements.removeAll() }
            return (.list(elements), nil)
        }
    }

    // MARK: - Helpers

    private static func missing(_ what: String) -> StrataError {
        StrataError(.invalidInput, "instruction refers to a missing or conflicting target: \(what)")
    }

    private func existing(_ key: TableKey) throws -> Table {
        guard let table = tables[key] else { throw Self.missing("table \(key)") }
        return table
    }

    /// Throws unless `table` has a column at `column` (a replayed record may name any index).
    private func requireColumn(_ column: Int, of table: TableKey) throws {
        guard try existing(table).schema.columns.indices.contains(column) else {
            throw Self.missing("column \(column) of \(table)")
        }
    }

    private mutating func mutateSchema(_ key: TableKey, _ body: (inout Table) throws -> Void) throws {
        var table = try existing(key)
        tables[key] = nil
        try body(&table)
        table.rebuildIndexes()
        tables[key] = table
    }

    /// Applies the set of `value` at `path` when `value` fits the plain scalar column there (not
    /// the primary key: no uniqueness to check, no links or embedded objects to follow), as
    /// ``apply(_:)`` applies ``Instruction/setValue(_:_:)``, with one lookup of the table;
    /// returns false, changing nothing, when it is not such a set.
    ///
    /// - Throws: ``StrataError/Code/invalidInput`` when the object does not exist.
    mutating func setPlainScalar(_ value: Value, at path: PropertyPath) throws -> Bool {
        guard let index = tables.index(forKey: path.table),
              tables.values[index].plainScalarCheck(path.column)?.admits(value) == true else { return false }
        _ = try Self.setValue(value, at: path, in: &tables.values[index])
        return true
    }

    /// Stores `value` at `path` in `table` (whose key `path` names), maintaining its indexes;
    /// returns the value it replaced.
    private static func setValue(_ value: Value, at path: PropertyPath, in table: inout Table) throws -> Value {
        guard table.schema.columns.indices.contains(path.column), table.admitsPrimaryKey(value, inColumn: path.column) else {
            throw missing("column \(path.column) of \(path.table)")
        }
        let replaced = table.rows.modifyValue(forKey: path.object) { row in
            let old = row[path.column]
            row[path.column] = value
            return old
        }
        guard let replaced else { throw missing("object \(path.object) of \(path.table)") }
        table.reindex(column: path.column, from: replaced, to: value, key: path.object)
        return replaced
    }

    /// Changes one stored value in place and returns what `body` returns.
    private mutating func modifyValue<R>(at path: PropertyPath, _ body: (inout Value) throws -> R) throws -> R {
        guard tables[path.table]?.schema.columns.indices.contains(path.column) == true else {
            throw Self.missing("column \(path.column) of \(path.table)")
        }
        let result = try tables[path.table]!.rows.modifyValue(forKey: path.object) { row in
            try body(&row[path.column])
        }
        guard let result else { throw Self.missing("object \(path.object) of \(path.table)") }
        return result
    }

    /// Calls `body` with each column of `table` whose values may hold links, and `row`'s value
    /// there.
    func forEachLinkColumn(of table: Table, _ row: Row, _ body: (Int, Value) -> Void) {
        for column in table.schema.linkColumns { body(column, row[column]) }
    }

    /// Moves backlinks whose origin column index shifted after a column of `table` was removed.
    private mutating func renumberBacklinks(from table: TableKey, after removed: Int) throws {
        let source = try existing(table)
        source.forEachObject { object, row in
            forEachLinkColumn(of: source, row) { column, value in
                guard column >= removed else { return }
                updateBacklinks(removing: value, adding: nil, origin: Backlink(table: table, column: column + 1, object: object))
                updateBacklinks(removing: nil, adding: value, origin: Backlink(table: table, column: column, object: object))
            }
        }
    }

    mutating func updateBacklinks(removing old: Value?, adding new: Value?, origin: Backlink) {
        old?.forEachLink { link in
            guard tables[link.table] != nil else { return }
            let emptied = tables[link.table]!.backlinks.modifyValue(forKey: link.key) { counts in
                counts.remove(origin)
                return counts.isEmpty
            }
            if emptied == true { tables[link.table]!.backlinks.removeValue(forKey: link.key) }
        }
        new?.forEachLink { link in
            guard tables[link.table] != nil else { return }
            if tables[link.table]!.backlinks.modifyValue(forKey: link.key, { $0.add(origin) }) == nil {
                var counts = BacklinkCounts()
                counts.add(origin)
                tables[link.table]!.backlinks.updateValue(counts, forKey: link.key)
            }
        }
    }
}

extension PropertyPath {
    var backlink: Backlink { Backlink(table: table, column: column, object: object) }
}
