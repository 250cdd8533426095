import Foundation
import Strata

/// A JSON value as the protocol carries it: events' payloads and the replies.
public indirect enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int64.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .int(let int): try container.encode(int)
        case .double(let double): try container.encode(double)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    /// The value as a Realm mixed value, nested maps and lists included.
    package var realmValue: AnyRealmValue {
        switch self {
        case .null: .none
        case .bool(let bool): .bool(bool)
        case .int(let int): .int(Int(int))
        case .double(let double): .double(double)
        case .string(let string): .string(string)
        case .array(let array): .fromArray(array.map(\.realmValue))
        case .object(let object): .fromDictionary(object.mapValues(\.realmValue))
        }
    }

    /// A mixed value read back as JSON (objects and binary values, which events never hold,
    /// become strings).
    init(_ value: AnyRealmValue) {
        switch value {
        case .none: self = .null
        case .int(let int): self = .int(Int64(int))
        case .bool(let bool): self = .bool(bool)
        case .float(let float): self = .double(Double(float))
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(string)
        case .list(let list): self = .array(list.map(JSONValue.init))
        case .dictionary(let map):
            // A map written by other code may hold keys that are one text in two Unicode forms:
            // distinct to the store, equal as Swift strings. The first is kept (never a trap).
            self = .object(Dictionary(map.map { ($0.key, JSONValue($0.value)) }, uniquingKeysWith: { first, _ in first }))
        default: self = .string("\(value)")
        }
    }

    /// The JSON text, keys sorted.
    public var text: String {
        var output = ""
        append(to: &output)
        return output
    }

    private func append(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let bool): output += bool ? "true" : "false"
        case .int(let int): output += String(int)
        case .double(let double): output += double.isFinite ? "\(double)" : "null"
        case .string(let string): Self.appendString(string, to: &output)
        case .array(let array):
            output += "["
            for (index, element) in array.enumerated() {
                if index > 0 { output += "," }
                element.append(to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.appendString(key, to: &output)
                output += ":"
                object[key]!.append(to: &output)
            }
            output += "}"
        }
    }

    private static func appendString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
