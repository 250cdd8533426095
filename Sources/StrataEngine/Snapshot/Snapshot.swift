/// An immutable, versioned view of the whole store.
///
/// A snapshot is a value: copying one is O(1) (its tables share structure with the version they
/// came from), reading it takes no lock, and it never changes, however many commits follow.
/// ``Store/pin()`` returns a counted handle to one; ``WriteTransaction/snapshot`` is the
/// transaction's own working copy.
package struct Snapshot: Sendable {
    /// The commit version this snapshot shows; 0 is the empty store.
    package internal(set) var version: UInt64
    var tables: [TableKey: Table]
    var tableNames: [String: TableKey]
    var nextTableKey: UInt32

    /// The empty store at version 0.
    package static let empty = Snapshot(version: 0, tables: [:], tableNames: [:], nextTableKey: 1)

    /// The table with `key`.
    ///
    /// - Complexity: O(1).
    package func table(_ key: TableKey) -> Table? { tables[key] }

    /// The object whose primary key in the table `key` is `value`: ``table(_:)`` and
    /// ``Table/object(forPrimaryKey:)`` without copying the table out (a retain and a release,
    /// on a path that runs once per `object(ofType:forPrimaryKey:)`).
    ///
    /// - Complexity: O(log n).
    package func object(forPrimaryKey value: Value, inTable key: TableKey) -> ObjectKey? {
        guard let index = tables.index(forKey: key) else { return nil }
        return tables.values[index].object(forPrimaryKey: value)
    }

    /// The integer primary-key index of the table `key` as this snapshot holds it, not retained
    /// (see ``UnretainedIntegerKeyIndex``); nil when the table has none (no table, or a primary key
    /// of another kind).
    ///
    /// - Complexity: O(1).
    package func unretainedIntegerPrimaryKeyIndex(inTable key: TableKey) -> UnretainedIntegerKeyIndex? {
        guard let index = tables.index(forKey: key) else { return nil }
        return tables.values[index].primaryKeyIndex.unretainedIntegers
    }

    /// The table named `name`.
    ///
    /// - Complexity: O(1).
    package func table(named name: String) -> Table? { tableNames[name].flatMap { tables[$0] } }

    /// The key of the table named `name`.
    ///
    /// - Complexity: O(1).
    package func tableKey(named name: String) -> TableKey? { tableNames[name] }

    /// Every table, ascending by key.
    ///
    /// - Complexity: O(t log t) in the number of tables.
    package var allTables: [Table] { tables.values.sorted { $0.key < $1.key } }

    /// The row a link points at, or nil if the object does not exist.
    ///
    /// - Complexity: O(log n).
    package func row(_ link: ObjectLink) -> Row? { tables[link.table]?.row(link.key) }
}
