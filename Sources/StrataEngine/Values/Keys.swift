/// The stable key of an object within its table.
///
/// Keys are assigned in increasing order and never reused, so a key names one object for the
/// life of the store even after that object is deleted.
public struct ObjectKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw key.
    package var rawValue: Int64

    /// Creates a key from its raw value.
    package init(_ rawValue: Int64) { self.rawValue = rawValue }

    public static func < (lhs: ObjectKey, rhs: ObjectKey) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "O\(rawValue)" }

    /// Hashes the raw value as one integer.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The integer's one-shot hash, for sets and dictionaries of object keys (a commit's summary
    /// collects every object it touched), as ``TableKey/_rawHashValue(seed:)`` does.
    public func _rawHashValue(seed: Int) -> Int { Int(rawValue)._rawHashValue(seed: seed) }
}

/// The stable key of a table, assigned when the table is created and never reused.
public struct TableKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw key.
    package var rawValue: UInt32

    /// Creates a key from its raw value.
    package init(_ rawValue: UInt32) { self.rawValue = rawValue }

    public static func < (lhs: TableKey, rhs: TableKey) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "T\(rawValue)" }

    /// Hashes the raw value as one integer.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The hash a `Dictionary` keyed by table keys uses: the integer's one-shot hash, instead of
    /// the streaming hasher the synthesized conformance runs (setup, one word, finalization).
    /// Every read and write finds its table in a snapshot's dictionary this way.
    public func _rawHashValue(seed: Int) -> Int { Int(rawValue)._rawHashValue(seed: seed) }
}

/// A reference to one object of one table: the value of a link.
public struct ObjectLink: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The table of the target.
    package var table: TableKey
    /// The target object.
    package var key: ObjectKey

    /// Creates a link to `key` in `table`.
    package init(table: TableKey, key: ObjectKey) {
        self.table = table
        self.key = key
    }

    public static func < (lhs: ObjectLink, rhs: ObjectLink) -> Bool {
        (lhs.table, lhs.key) < (rhs.table, rhs.key)
    }

    public var description: String { "\(table):\(key)" }
}
