import Foundation
import StrataEngine

@_spi(StrataTool)
extension StoreInspector {
    /// One object to import: a JSON object (as `JSONSerialization` reads it) and where it came
    /// from, for the report.
    public struct ImportedObject {
        /// The line (or position) of the object in its input, counted from 1.
        public let line: Int
        /// The JSON object, by property name.
        public let value: Any

        /// An object read from `line` of the input.
        public init(line: Int, value: Any) {
            self.line = line
            self.value = value
        }
    }

    /// An object that could not be imported, and why.
    public struct ImportProblem: Sendable, CustomStringConvertible {
        /// The line of the object in its input.
        public let line: Int
        /// What is wrong with it.
        public let message: String

        public var description: String { "line \(line): \(message)" }
    }

    /// The import was refused: nothing of it was written.
    public struct ImportFailure: Error, CustomStringConvertible {
        /// Every object that could not be imported (at most 100).
        public let problems: [ImportProblem]

        public var description: String { problems.map(\.description).joined(separator: "\n") }
    }

    /// What an import wrote.
    public struct ImportSummary: Sendable {
        /// Objects created.
        public let inserted: Int
        /// Existing objects (same primary key) updated.
        public let updated: Int
    }

    /// Imports `objects` into `className` in one write transaction: all of them or, when any is
    /// refused, none (the problems, with their lines, in ``ImportFailure``).
    ///
    /// Values are read as ``InspectionJSON`` writes them (dates as ISO 8601 text or seconds since
    /// 1970, `Data` as Base64, a link as the target's primary key, an embedded object as a JSON
    /// object); a property the object leaves out gets its type's default (zero, empty, nil). A
    /// key that is not a property, a value of the wrong type, a link to a missing object and
    /// a duplicate primary key are problems. With `update` `.modified` or `.all`, an object whose
    /// primary key exists updates it (its given properties; `.modified` writes only those that
    /// differ).
    ///
    /// - Throws: ``ImportFailure``; ``Realm/Error`` (`invalidInput`) for a class the store does
    ///   not have or an embedded class (embedded objects are imported inside their owners), and
    ///   the commit's errors.
    public func importObjects(_ objects: [ImportedObject], into className: String,
                              update: Realm.UpdatePolicy = .error) throws -> ImportSummary {
        realm.beginWrite()
        guard let transaction = realm.transaction else { throw Realm.Error(.fail, "The import's write did not begin") }
        let table: Table
        do {
            table = try self.table(named: className, in: transaction.snapshot)
            guard !table.schema.isEmbedded else {
                throw Realm.Error(.invalidInput, "'\(className)' is embedded: import its objects inside their owners")
            }
        } catch {
            realm.cancelWrite()
            throw error
        }
        var problems: [ImportProblem] = []
        var summary = (inserted: 0, updated: 0)
        let writer = ImportWriter(transaction: transaction)
        for object in objects where problems.count < 100 {
            do {
                if try writer.write(object.value, into: table.key, update: update) { summary.updated += 1 } else {
                    summary.inserted += 1
                }
            } catch {
                problems.append(ImportProblem(line: object.line, message: error.message))
            }
        }
        guard problems.isEmpty else {
            realm.cancelWrite()
            throw ImportFailure(problems: problems)
        }
        try realm.commitWrite()
        return ImportSummary(inserted: summary.inserted, updated: summary.updated)
    }
}

/// Why one imported value was refused.
struct ImportError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Writes imported JSON objects into a write transaction, converting each value for its column
/// strictly (a value of another type is refused, never guessed).
struct ImportWriter {
    let transaction: WriteTransaction

    /// Inserts the object (or, with an update policy and an existing primary key, updates it);
    /// true when it updated.
    func write(_ value: Any, into tableKey: TableKey, update: Realm.UpdatePolicy) throws(ImportError) -> Bool {
        guard let fields = value as? [String: Any] else { throw ImportError("not a JSON object") }
        guard let table = transaction.snapshot.table(tableKey) else { throw ImportError("the class is gone") }
        let schema = table.schema
        if let unknown = fields.keys.sorted().first(where: { schema.columnIndex($0) == nil }) {
            throw ImportError("'\(schema.name)' has no property '\(unknown)'")
        }
        if let column = schema.primaryKeyIndex {
            let name = schema.columns[column].name
            guard let given = fields[name] else { throw ImportError("the primary key '\(name)' is missing") }
            let key = try self.value(given, for: schema.columns[column], property: name)
            if let existing = table.object(forPrimaryKey: key) {
                guard update != .error else {
                    throw ImportError("an object with primary key \(describe(given)) exists (import with an update "
                                      + "policy to update it)")
                }
                try self.update(existing, of: table, with: fields, onlyChanged: update == .modified)
                return true
            }
        }
        _ = try insert(fields, into: table)
        return false
    }

    private func insert(_ fields: [String: Any], into table: Table) throws(ImportError) -> ObjectKey {
        var row = table.schema.columns.map { SchemaMigrator.defaultValue(for: $0) }
        for (index, column) in table.schema.columns.enumerated() {
            guard let given = fields[column.name] else { continue }
            row[index] = try value(given, for: column, property: column.name)
        }
        do {
            return try transaction.insertObject(into: table.key, values: row)
        } catch {
            throw ImportError("\(Realm.Error.wrap(error).message)")
        }
    }

    private func update(_ object: ObjectKey, of table: Table, with fields: [String: Any],
                        onlyChanged: Bool) throws(ImportError) {
        for (index, column) in table.schema.columns.enumerated() where index != table.schema.primaryKeyIndex {
            guard let given = fields[column.name] else { continue }
            let stored = try value(given, for: column, property: column.name)
            if onlyChanged, transaction.snapshot.table(table.key)?.value(of: object, column: index) == stored { continue }
            do {
                try transaction.setValue(stored, at: PropertyPath(table: table.key, object: object, column: index))
            } catch {
                throw ImportError("\(column.name): \(Realm.Error.wrap(error).message)")
            }
        }
    }

    // MARK: - Values

    /// `json` converted for `column` (a collection as a whole).
    func value(_ json: Any, for column: ColumnSchema, property: String) throws(ImportError) -> Value {
        if json is NSNull {
            guard column.collection == .single else { return column.emptyValue }
            guard column.isOptional || column.type == .link || column.type == .mixed else {
                throw ImportError("\(property) is required and cannot be null")
            }
            return .null
        }
        switch column.collection {
        case .single:
            return try element(json, for: column, property: property)
        case .list, .set:
            guard let array = json as? [Any] else { throw ImportError("\(property) takes an array, not \(describe(json))") }
            var elements: [Value] = []
            for item in array { elements.append(try element(item, for: column, property: property)) }
            return column.collection == .list ? .list(elements) : .set(elements)
        case .dictionary:
            guard let object = json as? [String: Any] else {
                throw ImportError("\(property) takes a JSON object, not \(describe(json))")
            }
            var entries: [(String, Value)] = []
            for key in object.keys.sorted() { entries.append((key, try element(object[key]!, for: column, property: property))) }
            return .dictionary(ValueMap(entries))
        }
    }

    /// One value (or collection element) of `column`'s type.
    private func element(_ json: Any, for column: ColumnSchema, property: String) throws(ImportError) -> Value {
        if json is NSNull {
            guard column.isOptional || column.type == .link || column.type == .mixed else {
                throw ImportError("\(property) cannot hold null")
            }
            return .null
        }
        let scalar = json is [Any] || json is [String: Any] ? nil : QueryArguments.stored(json)
        func refuse(_ expected: String) -> ImportError {
            ImportError("\(property) takes \(expected), not \(describe(json))")
        }
        switch (column.type, scalar) {
        case (.bool, .bool(let flag)?): return .bool(flag)
        case (.int, .int(let number)?): return .int(number)
        case (.int, .double(let number)?) where number.rounded() == number && abs(number) < 9.2e18: return .int(Int64(number))
        case (.float, .int(let number)?): return .float(Float(number))
        case (.float, .double(let number)?): return .float(Float(number))
        case (.double, .int(let number)?): return .double(Double(number))
        case (.double, .double(let number)?): return .double(number)
        case (.float, .string(let text)?), (.double, .string(let text)?):
            guard let number = Self.nonFinite(text) else { throw refuse("a number") }
            return column.type == .float ? .float(Float(number)) : .double(number)
        case (.string, .string(let text)?): return .string(text)
        case (.binary, .string(let text)?):
            guard let data = Data(base64Encoded: text) else { throw refuse("Base64 text") }
            return .binary(Array(data))
        case (.timestamp, .string(let text)?):
            guard let time = TimestampText.parse(text) else { throw refuse("an ISO 8601 date") }
            return .timestamp(time)
        case (.timestamp, .int(let seconds)?): return .timestamp(Timestamp(seconds: seconds))
        case (.timestamp, .double(let seconds)?): return .timestamp(Timestamp(Date(timeIntervalSince1970: seconds)))
        case (.decimal128, .string(let text)?):
            guard let decimal = try? Decimal128(string: text) else { throw refuse("a decimal") }
            return .decimal128(decimal.bits)
        case (.decimal128, .int(let number)?): return .decimal128(Decimal128(Int(number)).bits)
        case (.decimal128, .double(let number)?): return .decimal128(Decimal128(number).bits)
        case (.objectId, .string(let text)?):
            guard let id = try? ObjectId(string: text) else { throw refuse("an object id (24 hex digits)") }
            return .objectId(id.bits)
        case (.uuid, .string(let text)?):
            guard let uuid = UUID(uuidString: text) else { throw refuse("a UUID") }
            return .uuid(UUIDBits(uuid))
        case (.mixed, _): return try mixed(json, property: property)
        case (.link, _): return try link(json, to: column.linkTarget ?? "", property: property)
        default:
            throw refuse(Self.typeName(column.type))
        }
    }

    /// A mixed value: a JSON scalar, or an array or object of them (a nested list or map).
    private func mixed(_ json: Any, property: String) throws(ImportError) -> Value {
        switch json {
        case is NSNull: return .null
        case let array as [Any]:
            var elements: [Value] = []
            for item in array { elements.append(try mixed(item, property: property)) }
            return .list(elements)
        case let object as [String: Any]:
            var entries: [(String, Value)] = []
            for key in object.keys.sorted() { entries.append((key, try mixed(object[key]!, property: property))) }
            return .dictionary(ValueMap(entries))
        case is String, is NSNumber: return QueryArguments.stored(json)
        default: throw ImportError("\(property) takes a JSON value, not \(describe(json))")
        }
    }

    /// A link: to an embedded object, a JSON object that makes it; to an object with a
    /// primary key, that key (the object must exist).
    private func link(_ json: Any, to className: String, property: String) throws(ImportError) -> Value {
        guard let target = transaction.snapshot.table(named: className) else {
            throw ImportError("\(property) links to '\(className)', which the store does not have")
        }
        if target.schema.isEmbedded {
            guard let fields = json as? [String: Any] else {
                throw ImportError("\(property) takes a JSON object (an embedded '\(className)'), not \(describe(json))")
            }
            if let unknown = fields.keys.sorted().first(where: { target.schema.columnIndex($0) == nil }) {
                throw ImportError("\(property): '\(className)' has no property '\(unknown)'")
            }
            return .link(ObjectLink(table: target.key, key: try insert(fields, into: target)))
        }
        guard let column = target.schema.primaryKeyIndex else {
            throw ImportError("\(property) links to '\(className)', which has no primary key to name its objects by")
        }
        let key = try value(json, for: target.schema.columns[column], property: property)
        guard let object = target.object(forPrimaryKey: key) else {
            throw ImportError("\(property): no '\(className)' has the primary key \(describe(json))")
        }
        return .link(ObjectLink(table: target.key, key: object))
    }

    private static func nonFinite(_ text: String) -> Double? {
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return nil
        }
    }

    private static func typeName(_ type: ValueType) -> String {
        switch type {
        case .bool: return "true or false"
        case .int: return "an integer"
        case .float, .double: return "a number"
        case .string: return "a string"
        case .binary: return "Base64 text"
        case .timestamp: return "an ISO 8601 date or seconds since 1970"
        case .decimal128: return "a decimal"
        case .objectId: return "an object id"
        case .uuid: return "a UUID"
        case .mixed: return "a JSON value"
        case .link: return "a primary key"
        }
    }
}

/// A JSON value as it appears in a message: its JSON text, shortened.
private func describe(_ json: Any) -> String {
    let data = try? JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed, .sortedKeys])
    let text = data.map { String(decoding: $0, as: UTF8.self) } ?? "\(json)"
    return text.count > 60 ? String(text.prefix(57)) + "…" : text
}
