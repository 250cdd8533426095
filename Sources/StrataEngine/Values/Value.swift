// The engine's clients see the stored value types (ObjectId, Decimal128) through it.
@_exported import StrataValues

/// A value stored in a column: a scalar, a link, or the contents of a collection.
///
/// A row is an array of `Value`s, one per column. A list column holds ``list(_:)``, a set column
/// ``set(_:)`` (elements unique and kept in ``Value/precedes(_:)`` order), a dictionary column
/// ``dictionary(_:)``. A mixed column holds any case, including nested lists and dictionaries.
public enum Value: Hashable, Sendable {
    /// No value (an optional property that is nil, or a mixed value that is none).
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer (every Swift integer width is stored as 64 bits).
    case int(Int64)
    /// A 32-bit float.
    case float(Float)
    /// A 64-bit double.
    case double(Double)
    /// A string.
    case string(String)
    /// Binary data.
    case binary([UInt8])
    /// A point in time.
    case timestamp(Timestamp)
    /// A decimal128, as its 128 bits.
    case decimal128(Decimal128Bits)
    /// An object id, as its 12 bytes.
    case objectId(ObjectIdBits)
    /// A UUID, as its 16 bytes.
    case uuid(UUIDBits)
    /// A link to an object (a link column, a list of links, or a mixed value).
    case link(ObjectLink)
    /// An ordered collection: a list column's contents or a nested mixed list.
    case list([Value])
    /// A set column's contents: unique elements in ``Value/precedes(_:)`` order.
    case set([Value])
    /// A dictionary column's contents or a nested mixed dictionary.
    case dictionary(ValueMap)

    /// Equality as the engine orders values (``compare(_:)``): strings by their UTF-8 bytes, as
    /// Realm Core compares them (Swift's `String ==` follows canonical equivalence, so "Å" as one
    /// scalar would equal "Å" as two, and a set or an index could not tell them apart); every
    /// other payload as Swift compares it.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        if case .int(let a) = lhs, case .int(let b) = rhs { return a == b }
        return switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.float(a), .float(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): compareUTF8(a, b) == 0
        case let (.binary(a), .binary(b)): a == b
        case let (.timestamp(a), .timestamp(b)): a == b
        case let (.decimal128(a), .decimal128(b)): a == b
        case let (.objectId(a), .objectId(b)): a == b
        case let (.uuid(a), .uuid(b)): a == b
        case let (.link(a), .link(b)): a == b
        case let (.list(a), .list(b)), let (.set(a), .set(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        default: false
        }
    }

    /// Whether this is ``null``.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The link this value holds, if it is one.
    package var link: ObjectLink? {
        if case .link(let link) = self { return link }
        return nil
    }

    /// Calls `body` for every link in this value, descending into collections.
    ///
    /// - Complexity: O(n) in the number of nested elements.
    package func forEachLink(_ body: (ObjectLink) -> Void) {
        switch self {
        case .link(let link): body(link)
        case .list(let elements), .set(let elements):
            for element in elements { element.forEachLink(body) }
        case .dictionary(let map):
            for value in map.values { value.forEachLink(body) }
        default: break
        }
    }

    /// Whether this value holds a link anywhere inside it.
    var containsLink: Bool {
        switch self {
        case .link: return true
        case .list(let elements), .set(let elements): return elements.contains { $0.containsLink }
        case .dictionary(let map): return map.values.contains { $0.containsLink }
        default: return false
        }
    }

    /// This value with every link to `target` removed: a link becomes ``null``, list and set
    /// elements that are the link are dropped, dictionary values become ``null`` (Realm keeps
    /// the key).
    func removingLinks(to target: ObjectLink) -> Value {
        switch self {
        case .link(let link): return link == target ? .null : self
        case .list(let elements):
            return .list(elements.compactMap { $0 == .link(target) ? nil : $0.removingLinks(to: target) })
        case .set(let elements):
            return .set(elements.filter { $0 != .link(target) })
        case .dictionary(var map):
            for (key, value) in map where value.containsLink {
                map[key] = value == .link(target) ? .null : value.removingLinks(to: target)
            }
            return .dictionary(map)
        default: return self
        }
    }
}
