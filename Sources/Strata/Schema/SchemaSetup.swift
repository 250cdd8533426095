import StrataEngine
import StrataSupport

/// Brings a Realm's file in line with its model classes when it opens: creates missing tables,
/// stores the schema version, and runs a migration (or refuses to open) when a class changed.
struct SchemaSetup {
    let realm: Realm

    /// The hidden table that stores the schema version.
    static let metadataTable = "__strata_metadata"

    static func openStore(_ configuration: Realm.Configuration) throws -> Store {
        let store = try Store.open(configuration.storeConfiguration)
        CheckpointFailureLog.attach(to: store, logger: configuration.logger)
        return store
    }

    /// The classes the Realm's schema holds: the configured ones (or every class used so far),
    /// plus every class they link to.
    func targetClasses() throws -> [ClassInfo] {
        var pending = try realm.configuration.objectTypes.map { try $0.map(ClassInfo.of) } ?? ClassInfo.knownClasses
        var result: [String: ClassInfo] = [:]
        while let info = pending.popLast() {
            guard result[info.className] == nil else { continue }
            result[info.className] = info
            for property in info.properties {
                if let target = property.column.objectType { pending.append(try ClassInfo.of(target)) }
            }
        }
        try Self.validateLinkingObjects(Array(result.values))
        return result.values.sorted { $0.className < $1.className }
    }

    static func validateLinkingObjects(_ classes: [ClassInfo]) throws {
        for info in classes {
            for property in info.properties where property.isLinkingObjects {
                let origin = try ClassInfo.of(property.column.objectType!)
                guard let originIndex = origin.propertyIndex[property.originProperty ?? ""],
                      origin.properties[originIndex].column.objectType.map({ $0 == info.type }) == true else {
                    throw Realm.Error(Realm.Error.invalidSchema,
                                      "Property '\(origin.className).\(property.originProperty ?? "")' declared as "
                                          + "origin of linking objects property '\(info.className).\(property.name)' "
                                          + "does not exist or does not link to '\(info.className)'")
                }
            }
        }
    }

    func run() throws {
        let classes = try targetClasses()
        realm.state.schemaClasses = classes
        defer { for info in classes { _ = realm.tableInfo(for: info) } }
        let configuration = realm.configuration
        let snapshot = realm.readSnapshot
        let storedVersion = Self.storedSchemaVersion(in: snapshot)
        if let storedVersion, configuration.schemaVersion < storedVersion, !configuration.deleteRealmIfMigrationNeeded {
            throw Realm.Error(Realm.Error.schemaMismatch,
                              "Provided schema version \(configuration.schemaVersion) is less than last set version "
                                  + "\(storedVersion).")
        }
        let changes = classes.compactMap { info -> (ClassInfo, [String])? in
            guard let table = snapshot.table(named: info.className) else { return nil }
            let differences = Self.differences(between: table.schema, and: info)
            return differences.isEmpty ? nil : (info, differences)
        }
        let missing = classes.filter { snapshot.table(named: $0.className) == nil }
        let indexChanges = classes.contains { info in
            snapshot.table(named: info.className).map { Self.indexesDiffer($0.schema, info.tableSchema) } ?? false
        }
        let versionChanged = storedVersion != configuration.schemaVersion
        guard !changes.isEmpty || !missing.isEmpty || indexChanges || versionChanged else { return }

        if !changes.isEmpty && !configuration.deleteRealmIfMigrationNeeded && storedVersion == configuration.schemaVersion {
            let lines = changes.flatMap { $0.1 }.map { "\n- \($0)" }.joined()
            throw Realm.Error(Realm.Error.schemaMismatch, "Migration is required due to the following errors:\(lines)")
        }
        if configuration.readOnly {
            if !changes.isEmpty || !missing.isEmpty {
                throw Realm.Error(Realm.Error.schemaMismatch,
                                  "The schema of a read-only Realm cannot be changed; open it writable once first")
            }
            return
        }

        // An existing file opened with a different version (or a changed schema) migrates: the
        // block runs even when only the version was bumped, as in Realm.
        let migrates = storedVersion != nil && (versionChanged || !changes.isEmpty)
        let transaction = try realm.store.beginWrite()
        do {
            if migrates && configuration.deleteRealmIfMigrationNeeded {
                for table in transaction.snapshot.allTables where table.schema.name != Self.metadataTable {
                    try transaction.removeTable(table.key)
                }
            } else if migrates {
                try SchemaMigrator(realm: realm, transaction: transaction, oldSnapshot: snapshot, classes: classes,
                                   oldVersion: storedVersion ?? 0).migrate()
            }
            try Self.createTables(for: classes, in: transaction)
            try Self.syncIndexes(for: classes, in: transaction)
            try Self.storeSchemaVersion(configuration.schemaVersion, in: transaction)
            try transaction.commit()
        } catch {
            transaction.cancel()
            throw error
        }
        realm.advance()
    }

    // MARK: - Tables

    /// Creates the tables of `classes` that do not exist yet (links may point at each other).
    static func createTables(for classes: [ClassInfo], in transaction: WriteTransaction) throws {
        var pending = classes
        var seen = Set<String>()
        while let info = pending.popLast() {
            guard seen.insert(info.className).inserted else { continue }
            if transaction.snapshot.table(named: info.className) == nil {
                try transaction.createTable(info.tableSchema)
            }
            for property in info.properties {
                if let target = property.column.objectType { pending.append(try ClassInfo.of(target)) }
            }
        }
    }

    /// Adds and drops secondary indexes to match the classes (no migration needed, as in Realm).
    static func syncIndexes(for classes: [ClassInfo], in transaction: WriteTransaction) throws {
        for info in classes {
            guard let table = transaction.snapshot.table(named: info.className) else { continue }
            for column in info.tableSchema.columns {
                guard let index = table.schema.columnIndex(column.name),
                      table.schema.columns[index].isIndexed != column.isIndexed else { continue }
                try transaction.setIndexed(column.isIndexed, column: index, of: table.key)
            }
        }
    }

    static func indexesDiffer(_ stored: TableSchema, _ wanted: TableSchema) -> Bool {
        wanted.columns.contains { column in
            stored.columnIndex(column.name).map { stored.columns[$0].isIndexed != column.isIndexed } ?? false
        }
    }

    /// The changes between a stored table and a class that need a migration, as Realm words them.
    static func differences(between stored: TableSchema, and info: ClassInfo) -> [String] {
        let wanted = info.tableSchema
        var lines: [String] = []
        for column in wanted.columns {
            guard let index = stored.columnIndex(column.name) else {
                lines.append("Property '\(info.className).\(column.name)' has been added.")
                continue
            }
            let old = stored.columns[index]
            if old.type != column.type || old.collection != column.collection || old.linkTarget != column.linkTarget {
                lines.append("Property '\(info.className).\(column.name)' has been changed from '\(describe(old))' to "
                             + "'\(describe(column))'.")
            } else if old.isOptional != column.isOptional {
                lines.append("Property '\(info.className).\(column.name)' has been made "
                             + "\(column.isOptional ? "optional" : "required").")
            }
        }
        for column in stored.columns where wanted.columnIndex(column.name) == nil {
            lines.append("Property '\(info.className).\(column.name)' has been removed.")
        }
        switch (stored.primaryKey, wanted.primaryKey) {
        case (nil, .some):
            lines.append("Primary Key for class '\(info.className)' has been added.")
        case (.some(let old), .some(let new)) where old != new:
            lines.append("Primary Key for class '\(info.className)' has changed from '\(old)' to '\(new)'.")
        case (.some, nil):
            lines.append("Primary Key for class '\(info.className)' has been removed.")
        default:
            break
        }
        if stored.isEmbedded != wanted.isEmbedded {
            lines.append("Class '\(info.className)' has been changed from \(stored.isEmbedded ? "embedded" : "top-level") "
                         + "to \(wanted.isEmbedded ? "embedded" : "top-level").")
        }
        return lines
    }

    private static func describe(_ column: ColumnSchema) -> String {
        let names: [ValueType: String] = [
            .bool: "bool", .int: "int", .float: "float", .double: "double", .string: "string", .binary: "data",
            .timestamp: "date", .decimal128: "decimal128", .objectId: "object id", .uuid: "uuid", .mixed: "mixed",
        ]
        let base = column.linkTarget.map { "<\($0)>" } ?? names[column.type] ?? "\(column.type)"
        switch column.collection {
        case .single: return base
        case .list: return "array\(base)"
        case .set: return "set\(base)"
        case .dictionary: return "dictionary\(base)"
        }
    }

    // MARK: - Schema version

    static func storedSchemaVersion(in snapshot: Snapshot) -> UInt64? {
        guard let table = snapshot.table(named: metadataTable), table.count > 0,
              case .int(let version) = table.row(table.object(at: 0))![0] else { return nil }
        return UInt64(bitPattern: version)
    }

    static func storeSchemaVersion(_ version: UInt64, in transaction: WriteTransaction) throws {
        let table: TableKey
        if let existing = transaction.snapshot.tableKey(named: metadataTable) {
            table = existing
        } else {
            table = try transaction.createTable(TableSchema(name: metadataTable, columns: [ColumnSchema("schemaVersion", .int)]))
        }
        let value = StrataEngine.Value.int(Int64(bitPattern: version))
        if let row = transaction.snapshot.table(table)!.objectKeys.first {
            try transaction.setValue(value, at: PropertyPath(table: table, object: row, column: 0))
        } else {
            try transaction.insertObject(into: table, values: [value])
        }
    }
}
