import Foundation
import StrataEngine

/// Objects of a store as JSON values (Foundation's: dictionaries, arrays, `NSNull`, numbers,
/// strings), keeping every value so that the `strata` tool's export reads back through its
/// import:
///
/// - numbers, booleans and strings as themselves (a float or double that is NaN or infinite as
///   the string `"NaN"`, `"Infinity"` or `"-Infinity"`);
/// - dates as ISO 8601 text in UTC with nanoseconds (`2024-05-01T12:30:00.123456789Z`);
/// - `Data` as Base64 text; `Decimal128`, `ObjectId` and `UUID` as their text;
/// - a link as the target's primary key, an embedded object as a JSON object of its own, a link
///   to an object of a class without a primary key as `{"$class": …, "$key": n}` (the object's
///   key in the file);
/// - a mixed value as its value, a link in it as `{"$class": …, "$primaryKey": …}`;
/// - lists and sets as arrays, maps as objects.
struct InspectionJSON {
    let snapshot: Snapshot

    /// The object `key` of `table` as a JSON object, by property name.
    func object(_ table: TableKey, _ key: ObjectKey) -> Any {
        guard let table = snapshot.table(table), let row = table.row(key) else { return NSNull() }
        var fields: [String: Any] = [:]
        for (index, column) in table.schema.columns.enumerated() {
            fields[column.name] = json(row[index], mixed: column.type == .mixed)
        }
        return fields
    }

    private func json(_ value: Value, mixed: Bool) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .int(let number): return Int(number)
        case .float(let number): return Self.number(Double(number))
        case .double(let number): return Self.number(number)
        case .string(let text): return text
        case .binary(let bytes): return Data(bytes).base64EncodedString()
        case .timestamp(let time): return TimestampText.iso8601(time, fractionDigits: 9)
        case .decimal128(let bits): return Decimal128(bits).description
        case .objectId(let bits): return ObjectId(bits).stringValue
        case .uuid(let bits): return UUID(bits).uuidString
        case .link(let link): return self.link(link, inMixed: mixed)
        case .list(let elements), .set(let elements): return elements.map { json($0, mixed: mixed) }
        case .dictionary(let map):
            var object: [String: Any] = [:]
            for (key, element) in map where object[key] == nil { object[key] = json(element, mixed: mixed) }
            return object
        }
    }

    private func link(_ link: ObjectLink, inMixed: Bool) -> Any {
        guard let target = snapshot.table(link.table) else { return NSNull() }
        let schema = target.schema
        if let column = schema.primaryKeyIndex, let value = target.value(of: link.key, column: column) {
            let key = json(value, mixed: false)
            return inMixed ? ["$class": schema.name, "$primaryKey": key] : key
        }
        if schema.isEmbedded { return object(link.table, link.key) }
        return ["$class": schema.name, "$key": Int(link.key.rawValue)]
    }

    /// A double as JSON can hold it: NaN and the infinities as text.
    private static func number(_ value: Double) -> Any {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "Infinity" : "-Infinity" }
        return value
    }
}
