import Foundation
import StrataEngine

/// Serializes objects for events by Realm's rules:
/// every column by name; numbers, booleans and strings as JSON; ObjectId and UUID as strings;
/// dates as `YYYY-MM-DDTHH:MM:SS.mmmZ`; Data and Decimal128 omitted; a link as its target's
/// primary key (the whole object for an embedded or key-less target); lists as arrays, maps as
/// objects. A class that is ``CustomEventRepresentable`` gives its own JSON.
struct EventJSON {
    let snapshot: Snapshot
    /// The custom JSON of an object, when its class provides one.
    let custom: (TableKey, ObjectKey) -> String?

    /// The JSON value of an object.
    func object(_ table: TableKey, _ key: ObjectKey, depth: Int = 0) -> Any {
        if let text = custom(table, key) {
            // Realm requires a valid JSON representation and embeds it verbatim; so do we.
            return RawJSON(text: text)
        }
        guard let table = snapshot.table(table), let row = table.row(key) else { return NSNull() }
        var fields: [String: Any] = [:]
        for (index, column) in table.schema.columns.enumerated() {
            if let value = json(row[index], column: column, depth: depth) { fields[column.name] = value }
        }
        return fields
    }

    /// The fields of `new` that differ from `old` (Realm's `newValue` of a modification).
    func changedFields(_ table: TableKey, _ key: ObjectKey, from old: EventJSON) -> [String: Any] {
        guard let newObject = object(table, key) as? [String: Any] else { return [:] }
        let oldObject = old.object(table, key) as? [String: Any] ?? [:]
        return newObject.filter { name, value in
            guard let before = oldObject[name] else { return true }
            return !Self.equal(before, value)
        }
    }

    private func json(_ value: Value, column: ColumnSchema, depth: Int) -> Any? {
        switch value {
        case .null: return NSNull()
        case .bool(let bool): return bool
        case .int(let int): return int
        case .float(let float): return Double(float)
        case .double(let double): return double
        case .string(let string): return string
        case .binary, .decimal128: return nil
        case .timestamp(let timestamp): return Self.date(timestamp)
        case .objectId(let bits): return ObjectId(bits).stringValue
        case .uuid(let bits): return UUID(bits).uuidString
        case .link(let link): return self.link(link, depth: depth)
        case .list(let elements), .set(let elements):
            return elements.map { json($0, column: column, depth: depth) ?? NSNull() }
        case .dictionary(let map):
            var object: [String: Any] = [:]
            for (key, element) in map { object[key] = json(element, column: column, depth: depth) ?? NSNull() }
            return object
        }
    }

    private func link(_ link: ObjectLink, depth: Int) -> Any {
        guard let target = snapshot.table(link.table) else { return NSNull() }
        if let primaryKey = target.schema.primaryKey, let column = target.schema.columnIndex(primaryKey),
           let value = target.value(of: link.key, column: column) {
            return json(value, column: target.schema.columns[column], depth: depth) ?? NSNull()
        }
        // Embedded objects are always written whole; key-less targets too, one level deep.
        return depth < 4 ? object(link.table, link.key, depth: depth + 1) : NSNull()
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, in UTC.
    static func date(_ timestamp: Timestamp) -> String {
        TimestampText.iso8601(timestamp, fractionDigits: 3)
    }

    /// JSON text for a value built from dictionaries, arrays and scalars, keys sorted.
    static func text(_ value: Any) -> String {
        JSONText.write(value)
    }

    static func equal(_ lhs: Any, _ rhs: Any) -> Bool {
        text([lhs]) == text([rhs])
    }
}
