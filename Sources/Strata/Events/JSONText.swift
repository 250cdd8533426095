import Foundation

/// Writes JSON text for trees of dictionaries, arrays and scalars, keys sorted (as Realm's event
/// JSON is): a small, fast replacement for `JSONSerialization` on the event paths.
enum JSONText {
    /// The JSON text of `value`: `[String: Any]`, `[Any]`, `String`, integers, `Double`,
    /// `Float`, `Bool`, `NSNull` (and nil) are written; anything else becomes `null`.
    static func write(_ value: Any) -> String {
        var output = ""
        output.reserveCapacity(256)
        append(value, to: &output)
        return output
    }

    static func append(_ value: Any?, to output: inout String) {
        switch value {
        case nil, is NSNull:
            output += "null"
        case let raw as RawJSON:
            output += raw.text
        case let string as String:
            appendString(string, to: &output)
        case let bool as Bool:
            output += bool ? "true" : "false"
        case let int as Int:
            output += String(int)
        case let int as Int64:
            output += String(int)
        case let double as Double:
            output += double.isFinite ? number(double) : "null"
        case let float as Float:
            output += float.isFinite ? number(Double(float)) : "null"
        case let array as [Any]:
            output += "["
            for (index, element) in array.enumerated() {
                if index > 0 { output += "," }
                append(element, to: &output)
            }
            output += "]"
        case let object as [String: Any]:
            output += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                appendString(key, to: &output)
                output += ":"
                append(object[key], to: &output)
            }
            output += "}"
        default:
            output += "null"
        }
    }

    /// A double as JSON: integral values without a fraction (`2`, not `2.0`), as
    /// `JSONSerialization` writes them.
    private static func number(_ double: Double) -> String {
        if double.rounded() == double, abs(double) < 1e15 { return String(Int64(double)) }
        return "\(double)"
    }

    static func appendString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let control where control.value < 0x20:
                output += "\\u" + String(repeating: "0", count: 4 - String(control.value, radix: 16).count)
                    + String(control.value, radix: 16)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

/// JSON text that is already valid (a `CustomEventRepresentable` representation), written as is.
struct RawJSON {
    let text: String
}
