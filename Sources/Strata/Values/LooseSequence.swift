import Foundation

/// The elements of a loosely typed value given for a to-many property (`Object(value:)`,
/// `create(_:value:)`, `object["name"] = value`, the migration API): an array, or any other
/// sequence, as Realm enumerates whatever collection it is given there (a `Results`, a `List`, a
/// `MutableSet`, `LinkingObjects`, an `AnyRealmCollection`, a Foundation set).
enum LooseSequence {
    /// The elements of `value` in its order, or nil when it is not a sequence of values (a
    /// string is a sequence of characters to Swift, but not to Realm).
    ///
    /// - Complexity: O(n): the elements are read once.
    static func elements(of value: Any) -> [Any]? {
        if let array = value as? [Any] { return array }
        guard !(value is any StringProtocol), let sequence = value as? any Sequence else { return nil }
        return collect(sequence)
    }

    /// Whether a loosely typed value is nil or `NSNull` (through any optional layers): Realm
    /// takes it as no value, an empty collection for a collection property.
    static func isAbsent(_ value: Any) -> Bool {
        guard let value = KeyValueCoding.flattened(value) else { return true }
        return value is NSNull
    }

    private static func collect<S: Sequence>(_ sequence: S) -> [Any] { sequence.map { $0 } }
}
