import Foundation
import StrataEngine

/// The objects of a migration, read and written by property name (Realm Swift's
/// `MigrationObject`).
public typealias MigrationObject = DynamicObject

/// What a migration block works with, as Realm Swift's `Migration`: the old and new schema,
/// every object in its old and new form, and operations to create, delete and rename.
///
/// ```swift
/// config.schemaVersion = 2
/// config.migrationBlock = { migration, oldSchemaVersion in
///     if oldSchemaVersion < 2 {
///         migration.enumerateObjects(ofType: "Person") { old, new in
///             new!["fullName"] = "\(old!["firstName"] as! String) \(old!["lastName"] as! String)"
///         }
///     }
/// }
/// ```
public final class Migration {
    let realm: Realm
    let transaction: WriteTransaction
    let oldSnapshot: Snapshot
    let classes: [ClassInfo]
    /// The first failure of an operation; it fails the open.
    var failure: Realm.Error?

    init(realm: Realm, transaction: WriteTransaction, oldSnapshot: Snapshot, classes: [ClassInfo]) {
        self.realm = realm
        self.transaction = transaction
        self.oldSnapshot = oldSnapshot
        self.classes = classes
    }

    /// The schema of the file before the migration.
    public var oldSchema: Schema {
        Schema(oldSnapshot.allTables.filter { !$0.schema.name.hasPrefix("__") }.map { DynamicSchema.objectSchema($0.schema) })
    }

    /// The schema after it: the model classes.
    public var newSchema: Schema { Schema(classes.map(ObjectSchema.init)) }

    /// Calls `block` for every object of `typeName` that existed before the migration, with its
    /// old form (read-only) and new form (writable; nil if deleted during the migration). An
    /// unknown type name does nothing.
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) {
        guard let old = oldSnapshot.table(named: typeName), let current = transaction.snapshot.table(old.key) else { return }
        let inNewSchema = classes.contains { $0.className == typeName }
        for key in old.objectKeys {
            let exists = transaction.snapshot.table(current.key)?.contains(key) == true
            // Objects deleted during the migration are skipped; a class no longer in the schema
            // is enumerated with a nil new object.
            if inNewSchema && !exists { continue }
            let oldObject = DynamicObject(source: .snapshot(oldSnapshot), table: old.key, key: key, migration: self)
            let newObject = inNewSchema ? DynamicObject(source: .transaction, table: old.key, key: key, migration: self) : nil
            block(oldObject, newObject)
        }
    }

    /// Creates an object of `typeName` from a dictionary of property values (or an array in
    /// property order) and returns it.
    @discardableResult
    public func create(_ typeName: String, value: Any = [Any]()) -> MigrationObject {
        guard let table = transaction.snapshot.table(named: typeName) else {
            preconditionFailure("Object type '\(typeName)' is not in the new schema")
        }
        var values = table.schema.columns.map { SchemaMigrator.defaultValue(for: $0) }
        let converter = DynamicValueConverter(migration: self)
        switch value {
        case let dictionary as [String: Any]:
            for (name, newValue) in dictionary {
                guard let index = table.schema.columnIndex(name) else {
                    preconditionFailure("Invalid property name: property '\(name)' not found in object of type '\(typeName)'")
                }
                values[index] = converter.stored(newValue, for: table.schema.columns[index])
            }
        case let array as [Any]:
            for (index, newValue) in array.enumerated() where index < values.count {
                values[index] = converter.stored(newValue, for: table.schema.columns[index])
            }
        default:
            preconditionFailure("Invalid value '\(value)' to create an object of type '\(typeName)'")
        }
        do {
            let key = try transaction.insertObject(into: table.key, values: values)
            return DynamicObject(source: .transaction, table: table.key, key: key, migration: self)
        } catch {
            record(error)
            return DynamicObject(source: .transaction, table: table.key, key: ObjectKey(-1), migration: self)
        }
    }

    /// Deletes an object created or enumerated in this migration.
    public func delete(_ object: MigrationObject) {
        do {
            try transaction.eraseObject(object.key, in: object.table)
        } catch {
            record(error)
        }
    }

    /// Deletes every object of `typeName`; when the type is no longer a model class, removes its
    /// table too.
    ///
    /// - Returns: whether there was a table for the type.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard let table = transaction.snapshot.table(named: typeName) else { return false }
        do {
            if classes.contains(where: { $0.className == typeName }) {
                for key in table.objectKeys where transaction.snapshot.table(table.key)?.contains(key) == true {
                    try transaction.eraseObject(key, in: table.key)
                }
            } else {
                try transaction.removeTable(table.key)
            }
        } catch {
            record(error)
        }
        return true
    }

    /// Carries the values of the old property `oldName` over to the new property `newName` of
    /// `typeName` (the property was renamed in the model).
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let old = oldSnapshot.table(named: typeName), let from = old.schema.columnIndex(oldName),
              let new = transaction.snapshot.table(named: typeName), let to = new.schema.columnIndex(newName) else {
            record(Realm.Error(Realm.Error.invalidInput,
                               "Cannot rename property '\(typeName).\(oldName)' to '\(newName)': one of them does not exist"))
            return
        }
        do {
            for key in old.objectKeys where transaction.snapshot.table(new.key)?.contains(key) == true {
                try transaction.setValue(old.value(of: key, column: from)!,
                                         at: PropertyPath(table: new.key, object: key, column: to))
            }
        } catch {
            record(error)
        }
    }

    /// Runs the configuration's migration block with this migration: the Realm is in the
    /// migration's write transaction meanwhile, and the migration is the one running on this
    /// thread, so the live collections of its objects read and write it.
    ///
    /// - Throws: the first failure of an operation in the block.
    func run(_ block: Realm.MigrationBlock, oldVersion: UInt64) throws {
        let dictionary = Thread.current.threadDictionary
        let outer = dictionary[Self.runningKey]
        dictionary[Self.runningKey] = self
        realm.writeState = .active(transaction)
        block(self, oldVersion)
        let state = realm.writeState
        realm.writeState = .none
        dictionary[Self.runningKey] = outer
        if let failure { throw failure }
        if case .failed(let error) = state { throw error }
    }

    /// The migration whose block runs on this thread for `realm`, if any.
    static func running(for realm: Realm) -> Migration? {
        guard let migration = Thread.current.threadDictionary[runningKey] as? Migration,
              migration.realm.state === realm.state else { return nil }
        return migration
    }

    private static let runningKey = "strata.migration.running"

    func record(_ error: any Error) {
        if failure == nil { failure = Realm.Error.wrap(error) }
    }
}
