import Foundation
import StrataEngine
import StrataSupport

/// One event row, ready to be written.
struct EventRow {
    var activity: String
    var event: String
    var data: String?
    var timestamp: Date
    var metadata: [String: String]
}

/// The durable store of a Realm's events (`<file>.events`), with Realm's event table:
/// `_id` (ObjectId, primary key), `activity`, `event`, `data`, `timestamp`, and one optional
/// string column per metadata key.
final class EventStore: Sendable {
    static let tableName = "AuditEvent"
    let store: Store

    private init(store: Store) {
        self.store = store
    }

    /// The event store of a Realm configuration, opened once per process.
    static func `for`(_ configuration: Realm.Configuration) throws -> EventStore {
        let location: StoreConfiguration.Location
        if let identifier = configuration.inMemoryIdentifier {
            location = .inMemory(identifier: identifier + ".events")
        } else {
            location = .file(path: (configuration.fileURL ?? Realm.Configuration.defaultFileURL).path + ".events")
        }
        let key = "\(location)"
        return try registry.withLockedValue { stores in
            if let existing = stores[key] { return existing }
            let store = EventStore(store: try Store.open(StoreConfiguration(location: location, durability: .full)))
            stores[key] = store
            return store
        }
    }

    /// Event stores stay open for the life of the process, as a Realm's event file does while
    /// it may be written.
    private static let registry = LockedValueBox<[String: EventStore]>([:])

    /// Writes `rows` in one durable transaction, adding metadata columns as needed.
    func write(_ rows: [EventRow]) throws {
        guard !rows.isEmpty else { return }
        try store.write { transaction in
            let table = try eventTable(transaction, metadataKeys: Set(rows.flatMap(\.metadata.keys)))
            guard let schema = transaction.snapshot.table(table)?.schema else { return }
            for row in rows {
                var values = schema.columns.map(\.emptyValue)
                for (index, column) in schema.columns.enumerated() {
                    switch column.name {
                    case "_id": values[index] = .objectId(ObjectId.generate().bits)
                    case "activity": values[index] = .string(row.activity)
                    case "event": values[index] = .string(row.event)
                    case "data": values[index] = row.data.map(Value.string) ?? .null
                    case "timestamp": values[index] = .timestamp(Timestamp(row.timestamp))
                    default: values[index] = row.metadata[column.name].map(Value.string) ?? .null
                    }
                }
                _ = try transaction.insertObject(into: table, values: values)
            }
        }
    }

    private func eventTable(_ transaction: WriteTransaction, metadataKeys: Set<String>) throws -> TableKey {
        let table: TableKey
        if let existing = transaction.snapshot.table(named: Self.tableName) {
            table = existing.key
        } else {
            table = try transaction.createTable(TableSchema(name: Self.tableName, columns: [
                ColumnSchema("_id", .objectId), ColumnSchema("activity", .string), ColumnSchema("event", .string),
                ColumnSchema("data", .string, isOptional: true), ColumnSchema("timestamp", .timestamp),
            ], primaryKey: "_id"))
        }
        let existing = Set(transaction.snapshot.table(table)?.schema.columns.map(\.name) ?? [])
        for key in metadataKeys.sorted() where !existing.contains(key) {
            try transaction.addColumn(ColumnSchema(key, .string, isOptional: true), to: table)
        }
        return table
    }

    /// Every event row, oldest first, as dictionaries of column name to value (for tests and
    /// operators).
    func allEvents() -> [[String: Value]] {
        let snapshot = store.currentSnapshot
        guard let table = snapshot.table(named: Self.tableName) else { return [] }
        return table.objectKeys.compactMap { key in
            guard let row = table.row(key) else { return nil }
            return Dictionary(uniqueKeysWithValues: zip(table.schema.columns.map(\.name), row.values))
        }
    }
}
