import StrataSupport

extension WriteTransaction {
    /// Creates an object with `values`, one per column (a set column's elements may be given in
    /// any order and with duplicates).
    ///
    /// - Returns: the new object's key.
    /// - Throws: ``StrataError/Code/duplicatePrimaryKey`` when the primary key is taken,
    ///   ``StrataError/Code/invalidInput`` when a value does not fit its column or links to a
    ///   missing object or an embedded object that already has an owner.
    ///
    /// `primaryKeyIsFree` tells that the caller looked the primary key up in this transaction's
    /// snapshot just before (as `Realm.add` does to choose between insert and update), so the
    /// lookup is not repeated.
    @discardableResult
    package func insertObject(into key: TableKey, values: [Value], primaryKeyIsFree: Bool = false) throws -> ObjectKey {
        // No `Table` copy may be alive across `record`: it would make the table's trees shared
        // and turn every insert into a path copy.
        let schema = try schema(of: key)
        let columns = schema.columns
        guard values.count == columns.count else {
            throw invalid("\(schema.name) has \(columns.count) columns, \(values.count) values given")
        }
        var normalized = values
        let checks = schema.scalarChecks
        var hasLinks = false
        for index in columns.indices {
            // A plain scalar that fits needs nothing more; anything else takes the full check,
            // which also names what is wrong.
            if let check = checks[index], check.admits(values[index]) { continue }
            normalized[index] = try validate(values[index], for: columns[index])
            if columns[index].type == .link { hasLinks = true }
        }
        if hasLinks {
            let linkColumns = columns.indices.filter { columns[$0].type == .link }
            try requireUnowned(linkColumns.map { normalized[$0] }, for: columns[linkColumns[0]])
        }
        if !primaryKeyIsFree, let primaryKey = schema.primaryKeyIndex,
           snapshot.tables[key]!.object(forPrimaryKey: normalized[primaryKey]) != nil {
            throw StrataError(.duplicatePrimaryKey,
                              "Attempting to create an object of type '\(schema.name)' with an existing primary "
                                  + "key value '\(normalized[primaryKey])'.")
        }
        let object = ObjectKey(snapshot.tables[key]!.nextObjectKey)
        try record(.insertObject(key, object, normalized))
        return object
    }

    /// Erases an object: removes every link to it, erases the embedded objects it owns, then
    /// erases it.
    package func eraseObject(_ object: ObjectKey, in key: TableKey) throws {
        let schema = try schema(of: key)
        guard let row = snapshot.tables[key]!.row(object) else { throw invalid("\(schema.name) has no object \(object)") }
        let target = ObjectLink(table: key, key: object)
        for origin in Set(snapshot.tables[key]!.backlinks(to: object)) { try removeLinks(to: target, from: origin) }
        try record(.eraseObject(key, object))
        for (column, columnSchema) in schema.columns.enumerated() {
            try eraseOwnedObjects(in: row[column], of: columnSchema)
        }
    }

    /// Sets one property. For a collection column, replaces the whole collection.
    ///
    /// - Throws: ``StrataError/Code/invalidInput`` when the value does not fit the column,
    ///   ``StrataError/Code/duplicatePrimaryKey`` when a primary key value is taken.
    package func setValue(_ value: Value, at path: PropertyPath) throws {
        // The most common set: a scalar that fits a plain scalar column other than the primary
        // key. Nothing depends on the old value, so it is checked and applied with one lookup of
        // the table and of the row.
        if try namingMissingObject(at: path, { try recordPlainScalarSet(value, at: path) }) { return }
        // Otherwise only the column's schema and the primary-key index are read first.
        let (column, primaryKey) = try { () throws -> (ColumnSchema, Int?) in
            guard let table = snapshot.tables[path.table] else { throw invalid("no table with key \(path.table)") }
            guard let column = table.column(path.column) else {
                throw invalid("\(table.schema.name) has no column \(path.column)")
            }
            return (column, table.primaryKeyColumn)
        }()
        if column.type != .link, primaryKey != path.column {
            // The common case: nothing below depends on the old value (no primary key to keep
            // unique, no embedded object to own or erase), so the row is looked up once, by the
            // instruction itself.
            try recordSet(try validate(value, for: column), at: path)
            return
        }
        let (schema, _, old) = try resolve(path)
        let value = try validate(value, for: column)
        if schema.primaryKeyIndex == path.column, value != old,
           snapshot.tables[path.table]!.object(forPrimaryKey: value) != nil {
            throw StrataError(.duplicatePrimaryKey, "\(schema.name).\(column.name) already has the value \(value)")
        }
        if value != old { try requireUnowned(value, for: column) }
        try record(.setValue(path, value))
        if value != old { try eraseOwnedObjects(in: old, of: column, keeping: value) }
    }

    /// Records a set that needs no check of the old value.
    private func recordSet(_ value: Value, at path: PropertyPath) throws {
        try namingMissingObject(at: path) { try record(.setValue(path, value)) }
    }

    /// Runs `body`, and when it throws because the object at `path` does not exist, throws
    /// that instead, named as the other paths name it.
    private func namingMissingObject<R>(at path: PropertyPath, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch {
            if let table = snapshot.tables[path.table], !table.contains(path.object) {
                throw invalid("\(table.schema.name) has no object \(path.object)")
            }
            throw error
        }
    }

    // MARK: - Shared rules

    /// Finds the table schema, column schema and current value at `path`.
    func resolve(_ path: PropertyPath) throws -> (TableSchema, ColumnSchema, Value) {
        let schema = try schema(of: path.table)
        guard schema.columns.indices.contains(path.column) else {
            throw invalid("\(schema.name) has no column \(path.column)")
        }
        guard let value = snapshot.tables[path.table]!.value(of: path.object, column: path.column) else {
            throw invalid("\(schema.name) has no object \(path.object)")
        }
        return (schema, schema.columns[path.column], value)
    }

    /// Checks that `value` fits `column` and returns it normalized (set elements sorted and unique).
    @discardableResult
    func validate(_ value: Value, for column: ColumnSchema) throws -> Value {
        switch (column.collection, value) {
        case (.single, _):
            try validateElement(value, for: column)
            return value
        case (.list, .list(let elements)):
            for element in elements { try validateElement(element, for: column) }
            return value
        case (.set, .set(let elements)), (.set, .list(let elements)):
            var sorted: [Value] = []
            for element in elements {
                try validateElement(element, for: column)
                switch element {
                case .list, .set, .dictionary: throw invalid("a set cannot hold a collection (column \(column.name))")
                default: break
                }
                let (index, found) = sorted.setPosition(of: element)
                if !found { sorted.insert(element, at: index) }
            }
            return .set(sorted)
        case (.dictionary, .dictionary(let map)):
            for element in map.values { try validateElement(element, for: column) }
            return value
        default:
            throw invalid("column \(column.name) holds a \(column.collection), not \(value)")
        }
    }

    /// Checks one value (or collection element) against the column's type.
    func validateElement(_ value: Value, for column: ColumnSchema) throws {
        // An element of a collection column sits one level below the column's value.
        try value.requireEncodable(atDepth: column.collection == .single ? 0 : 1)
        if value.isNull {
            guard column.isOptional || column.type == .mixed || column.type == .link else {
                throw invalid("column \(column.name) is not optional")
            }
            return
        }
        guard column.type.admits(value) else { throw invalid("column \(column.name) holds \(column.type), not \(value)") }
        if column.type == .mixed, case .set = value { throw invalid("a mixed value cannot hold a set") }
        try validateLinks(in: value, column: column)
    }

    private func validateLinks(in value: Value, column: ColumnSchema) throws {
        var failure: StrataError?
        value.forEachLink { link in
            guard failure == nil else { return }
            guard let target = snapshot.table(link.table), target.contains(link.key) else {
                failure = invalid("column \(column.name) links to a missing object \(link)")
                return
            }
            if column.type == .link, target.schema.name != column.linkTarget {
                failure = invalid("column \(column.name) links to \(column.linkTarget ?? "?"), not \(target.schema.name)")
            }
            if column.type == .mixed, target.schema.isEmbedded {
                failure = invalid("a mixed value cannot link to an embedded object")
            }
        }
        if let failure { throw failure }
    }

    /// Embedded objects have exactly one owner: refuse a link to one that already has one, or
    /// that `value` itself links to twice.
    func requireUnowned(_ value: Value, for column: ColumnSchema) throws {
        try requireUnowned([value], for: column)
    }

    /// `requireUnowned(_:for:)` for several values given together (the columns of one insert).
    func requireUnowned(_ values: [Value], for column: ColumnSchema) throws {
        guard column.type == .link else { return }
        var failure: StrataError?
        var seen = Set<ObjectLink>()
        for value in values {
            value.forEachLink { link in
                guard failure == nil, let target = snapshot.table(link.table), target.schema.isEmbedded else { return }
                if target.backlinkCount(to: link.key) > 0 || !seen.insert(link).inserted {
                    failure = invalid("Can't link to an embedded object that is already managed "
                                      + "(\(target.schema.name) \(link.key))")
                }
            }
        }
        if let failure { throw failure }
    }

    /// Erases the embedded objects `value` links to, except those `kept` still links to.
    func eraseOwnedObjects(in value: Value, of column: ColumnSchema, keeping kept: Value = .null) throws {
        guard column.type == .link else { return }
        var keptLinks = Set<ObjectLink>()
        kept.forEachLink { keptLinks.insert($0) }
        var owned: [ObjectLink] = []
        value.forEachLink { link in
            if !keptLinks.contains(link), snapshot.table(link.table)?.schema.isEmbedded == true { owned.append(link) }
        }
        for link in owned where snapshot.table(link.table)?.contains(link.key) == true {
            try eraseObject(link.key, in: link.table)
        }
    }

    /// Removes every link to `target` held by the property at `origin`.
    private func removeLinks(to target: ObjectLink, from origin: Backlink) throws {
        let path = PropertyPath(table: origin.table, object: origin.object, column: origin.column)
        let (_, column, value) = try resolve(path)
        let link = Value.link(target)
        switch (column.collection, value) {
        case (.list, .list(let elements)):
            for index in elements.indices.reversed() where elements[index] == link {
                try record(.list(path, .erase(index: index)))
            }
            for (index, element) in elements.enumerated() where element != link && element.containsLink {
                let cleaned = element.removingLinks(to: target)
                if cleaned != element {
                    let shifted = index - elements[..<index].filter { $0 == link }.count
                    try record(.list(path, .set(index: shifted, value: cleaned)))
                }
            }
        case (.set, .set):
            try record(.set(path, .erase(link)))
        case (.dictionary, .dictionary(let map)):
            for (key, element) in map where element.containsLink {
                let cleaned = element.removingLinks(to: target)
                if cleaned != element { try record(.dictionary(path, .set(key: key, value: cleaned))) }
            }
        default:
            try record(.setValue(path, value.removingLinks(to: target)))
        }
    }
}
