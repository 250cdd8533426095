import Foundation

/// JSON text for what the store inspector returns (Foundation JSON values), with an object's
/// keys in a given order (the class's property order) rather than hashing order.
enum JSONLines {
    /// `value` as compact JSON text; the keys of a top-level object in `order` first.
    static func text(_ value: Any, keyOrder order: [String] = []) -> String {
        guard let object = value as? [String: Any] else { return fragment(value) }
        let keys = order.filter { object[$0] != nil } + object.keys.filter { !order.contains($0) }.sorted()
        return "{" + keys.map { fragment($0) + ":" + fragment(object[$0]!) }.joined(separator: ",") + "}"
    }

    /// Any JSON value as compact text (nested objects' keys sorted).
    static func fragment(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value,
                                                     options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]) else {
            return "null"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A value as a table or CSV cell shows it: text as itself, null as empty, numbers and
    /// booleans as JSON writes them, arrays and objects as compact JSON.
    static func cell(_ value: Any) -> String {
        switch value {
        case is NSNull: return ""
        case let text as String: return text
        default: return fragment(value)
        }
    }
}
