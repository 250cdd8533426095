import StrataEngine

/// Applies the schema changes of a migration and runs the configuration's migration block,
/// inside the write transaction that opens the Realm.
///
/// Order, as Realm Core's automatic migration: columns are added, removed and retyped first
/// (the block reads every old value from the pre-migration snapshot, so nothing it needs is
/// lost), then the block runs, then primary keys are set and checked for duplicates.
struct SchemaMigrator {
    let realm: Realm
    let transaction: WriteTransaction
    let oldSnapshot: Snapshot
    let classes: [ClassInfo]
    let oldVersion: UInt64

    func migrate() throws {
        var primaryKeys: [(TableKey, String)] = []
        for info in classes {
            guard let table = transaction.snapshot.table(named: info.className) else { continue }
            let wanted = info.tableSchema
            if table.schema.isEmbedded != wanted.isEmbedded {
                throw Realm.Error(Realm.Error.schemaMismatch,
                                  "Changing '\(info.className)' between embedded and top-level is not supported by "
                                      + "Strata's migrations yet; delete and recreate its data instead")
            }
            // Primary keys are lifted while the block runs (it may swap or fill them) and checked
            // for duplicates afterwards, as Realm does.
            if table.schema.primaryKey != nil { try transaction.setPrimaryKey(nil, of: table.key) }
            try reshape(table.key, to: wanted)
            if let key = wanted.primaryKey { primaryKeys.append((table.key, key)) }
        }
        if let block = realm.configuration.migrationBlock {
            let migration = Migration(realm: realm, transaction: transaction, oldSnapshot: oldSnapshot, classes: classes)
            try migration.run(block, oldVersion: oldVersion)
        }
        for (table, key) in primaryKeys {
            do {
                try transaction.setPrimaryKey(key, of: table)
            } catch {
                let name = transaction.snapshot.table(table)?.schema.name ?? "?"
                throw Realm.Error(Realm.Error.schemaMismatch,
                                  "Primary key property '\(name).\(key)' has duplicate values after migration.")
            }
        }
    }

    /// Makes the table's columns those of `wanted`: new columns get the type's default value,
    /// removed ones go, and a column whose type changed is recreated (its values are kept when
    /// only optionality changed).
    private func reshape(_ table: TableKey, to wanted: TableSchema) throws {
        let current = transaction.snapshot.table(table)!.schema
        for (index, column) in current.columns.enumerated().reversed() {
            guard let target = wanted.columns.first(where: { $0.name == column.name }) else {
                try transaction.removeColumn(index, from: table)
                continue
            }
            if Self.sameShape(column, target) { continue }
            let keep = column.type == target.type && column.collection == target.collection
                && column.linkTarget == target.linkTarget
            let old = transaction.snapshot.table(table)!
            let values = keep ? old.objectKeys.map { ($0, old.value(of: $0, column: index)!) } : []
            try transaction.removeColumn(index, from: table)
            let fill = Self.defaultValue(for: target)
            try transaction.addColumn(target, to: table, fill: fill)
            let newIndex = transaction.snapshot.table(table)!.schema.columnIndex(target.name)!
            for (object, value) in values where !(value.isNull && !target.isOptional) {
                try transaction.setValue(value, at: PropertyPath(table: table, object: object, column: newIndex))
            }
        }
        for column in wanted.columns where transaction.snapshot.table(table)!.schema.columnIndex(column.name) == nil {
            try transaction.addColumn(column, to: table, fill: Self.defaultValue(for: column))
        }
    }

    private static func sameShape(_ a: ColumnSchema, _ b: ColumnSchema) -> Bool {
        a.type == b.type && a.collection == b.collection && a.isOptional == b.isOptional && a.linkTarget == b.linkTarget
    }

    /// The value existing objects get in a new column: null for optionals and links, an empty
    /// collection, or the type's zero value.
    static func defaultValue(for column: ColumnSchema) -> StrataEngine.Value {
        guard column.collection == .single, !column.isOptional else { return column.emptyValue }
        switch column.type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .binary: return .binary([])
        case .timestamp: return .timestamp(Timestamp(seconds: 0))
        case .decimal128: return .decimal128(Decimal128Bits(low: 0, high: 0x3040_0000_0000_0000))
        case .objectId: return .objectId(ObjectIdBits(head: 0, tail: 0))
        case .uuid: return .uuid(UUIDBits(high: 0, low: 0))
        case .mixed, .link: return .null
        }
    }
}
