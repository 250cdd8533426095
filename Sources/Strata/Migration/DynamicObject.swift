import Foundation
import StrataEngine

/// An object read and written by property name, without a model class (Realm Swift's
/// `DynamicObject`); in a migration, the old and new forms of each object.
public final class DynamicObject: CustomStringConvertible {
    enum Source {
        /// The pre-migration version: read-only.
        case snapshot(Snapshot)
        /// The migration's write transaction.
        case transaction
    }

    let source: Source
    let table: TableKey
    let key: ObjectKey
    unowned let migration: Migration

    init(source: Source, table: TableKey, key: ObjectKey, migration: Migration) {
        self.source = source
        self.table = table
        self.key = key
        self.migration = migration
    }

    private var snapshot: Snapshot {
        switch source {
        case .snapshot(let snapshot): snapshot
        case .transaction: migration.transaction.snapshot
        }
    }

    private var schema: TableSchema? { snapshot.table(table)?.schema }

    /// The stored value of the property at `column`, nil when the object or property is gone.
    func snapshotValue(column: Int) -> StrataEngine.Value? {
        snapshot.table(table)?.value(of: key, column: column)
    }

    /// The value of a property, as Realm Swift's `DynamicObject` reads it: `Int`, `Bool`,
    /// `Float`, `Double`, `String`, `Data`, `Date`, `Decimal128`, `ObjectId`, `UUID`,
    /// `AnyRealmValue`, a `DynamicObject` for a link, `List<T>` / `MutableSet<T>` /
    /// `Map<String, T>` for a collection (`List<DynamicObject>` for a list of objects), or nil.
    /// The new object's collections are live: appending to them writes into the migration.
    ///
    /// Setting needs the new form of the object; a collection property takes an array (or a
    /// `List` or `MutableSet`) of values, a map property a `[String: Any]`.
    ///
    /// ```swift
    /// migration.enumerateObjects(ofType: "Person") { old, new in
    ///     let dogs = new!["dogs"] as! List<MigrationObject>
    ///     dogs.append(migration.create("Dog", value: ["name": "Rex"]))
    /// }
    /// ```
    public subscript(key: String) -> Any? {
        get {
            guard let schema, let index = schema.columnIndex(key),
                  let value = snapshotValue(column: index) else { return nil }
            if schema.columns[index].collection != .single { return collection(at: index, schema: schema) }
            return DynamicValueConverter(migration: migration).any(value, source: source)
        }
        set {
            guard case .transaction = source else {
                preconditionFailure("Cannot modify the old object of a migration; write to the new object")
            }
            guard let schema, let index = schema.columnIndex(key) else {
                preconditionFailure("Invalid property name: property '\(key)' not found in object of type "
                                    + "'\(schema?.name ?? "?")'")
            }
            let stored = DynamicValueConverter(migration: migration).stored(newValue ?? NSNull(), for: schema.columns[index])
            do {
                try migration.transaction.setValue(stored, at: PropertyPath(table: table, object: self.key, column: index))
            } catch {
                migration.record(error)
            }
        }
    }

    public var description: String {
        guard let schema else { return "[invalid object]" }
        let lines = schema.columns.map { "\t\($0.name) = \(self[$0.name].map { "\($0)" } ?? "nil");" }
        return "\(schema.name) {\n" + lines.joined(separator: "\n") + "\n}"
    }
}

/// Converts between stored values and the loosely typed values of the dynamic API.
struct DynamicValueConverter {
    let migration: Migration

    func any(_ value: StrataEngine.Value, source: DynamicObject.Source) -> Any? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        case .int(let number): return Int(number)
        case .float(let number): return number
        case .double(let number): return number
        case .string(let string): return string
        case .binary(let bytes): return Data(bytes)
        case .timestamp(let time): return Date(time)
        case .decimal128(let bits): return Decimal128(bits)
        case .objectId(let bits): return ObjectId(bits)
        case .uuid(let bits): return UUID(bits)
        case .link(let link): return DynamicObject(source: source, table: link.table, key: link.key, migration: migration)
        case .list(let elements), .set(let elements): return elements.map { any($0, source: source) as Any }
        case .dictionary(let map):
            // A Swift dictionary merges keys that are one text in two Unicode forms, which a map
            // keeps apart (it compares bytes): the first in the map's order is kept, never a trap.
            return Dictionary(map.map { ($0.0, any($0.1, source: source) as Any) }, uniquingKeysWith: { first, _ in first })
        }
    }

    func stored(_ value: Any, for column: ColumnSchema) -> StrataEngine.Value {
        if value is NSNull { return column.collection == .single ? .null : column.emptyValue }
        switch column.collection {
        case .list, .set:
            let elements = (LooseSequence.elements(of: value) ?? []).map { element(element: $0, column) }
            return column.collection == .list ? .list(elements) : .set(elements)
        case .dictionary:
            let map = (value as? [String: Any] ?? [:]).map { ($0.key, element(element: $0.value, column)) }
            return .dictionary(ValueMap(map))
        case .single:
            return element(element: value, column)
        }
    }

    private func element(element value: Any, _ column: ColumnSchema) -> StrataEngine.Value {
        switch (column.type, value) {
        case (_, is NSNull): return .null
        case (.link, let object as DynamicObject): return .link(ObjectLink(table: object.table, key: object.key))
        case (.bool, let flag as Bool): return .bool(flag)
        case (.int, let number as any BinaryInteger):
            // `UInt64.max` does not fit: the migration fails with a typed error, no trap.
            guard let exact = Int64(exactly: number) else {
                migration.record(Realm.Error(Realm.Error.invalidInput,
                                             "Invalid value '\(number)' for property '\(column.name)': it does not fit "
                                                 + "in a 64-bit integer"))
                return .null
            }
            return .int(exact)
        case (.float, let number as Float): return .float(number)
        case (.float, let number as Double): return .float(Float(number))
        case (.double, let number as Double): return .double(number)
        case (.double, let number as Int): return .double(Double(number))
        case (.string, let string as String): return .string(string)
        case (.binary, let data as Data): return .binary(Array(data))
        case (.timestamp, let date as Date): return .timestamp(Timestamp(date))
        case (.decimal128, let decimal as Decimal128): return .decimal128(decimal.bits)
        case (.objectId, let id as ObjectId): return .objectId(id.bits)
        case (.uuid, let uuid as UUID): return .uuid(UUIDBits(uuid))
        case (.mixed, let mixed as AnyRealmValue): return mixed._rlmToStored(_WriteContext(realm: migration.realm, update: .error))
        default:
            preconditionFailure("Invalid value '\(value)' for property '\(column.name)' of type \(column.type)")
        }
    }
}

/// Builds public schema descriptions from stored table schemas (for `Migration.oldSchema`).
enum DynamicSchema {
    static func objectSchema(_ schema: TableSchema) -> ObjectSchema {
        ObjectSchema(className: schema.name, isEmbedded: schema.isEmbedded, properties: schema.columns.map { column in
            Property(name: column.name, column: column, isPrimary: column.name == schema.primaryKey)
        })
    }
}
