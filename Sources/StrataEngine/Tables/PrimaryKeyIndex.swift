import StrataStorage

/// A table's primary-key index: primary-key value → object.
///
/// A required `Int` primary key (the most common kind) is kept in a tree keyed by `Int64`: its
/// keys take 8 bytes instead of a `Value`'s 24 and compare as integers, so a lookup reads a third
/// of the memory (a lookup in a large table is mostly cache misses on the keys it compares).
/// Every other primary key (optional integers, strings, object ids, UUIDs) is kept in a tree
/// keyed by `Value`. Both write the same entries to pages (the key in the engine's value
/// encoding), so which one a table uses is a matter of its schema, not of its file.
struct PrimaryKeyIndex: Sendable {
    /// A required integer column's keys; nil when the index holds other keys.
    private(set) var integers: SortedTree<Int64, ObjectKey>?
    /// Any other column's keys; nil when the index holds integers.
    private var values: SortedTree<Value, ObjectKey>?

    /// An empty index for `schema`'s primary key (an empty `values` tree when it has none).
    init(for schema: TableSchema) {
        if Self.usesIntegers(schema) { integers = SortedTree() } else { values = SortedTree() }
    }

    /// Whether `schema`'s primary key is a required integer column.
    static func usesIntegers(_ schema: TableSchema) -> Bool {
        guard let index = schema.primaryKeyIndex else { return false }
        let column = schema.columns[index]
        return column.type == .int && !column.isOptional && column.collection == .single
    }

    /// The number of entries.
    var count: Int { integers?.count ?? values?.count ?? 0 }

    /// Whether `key` can be a key of this index (an integer index takes integers only).
    func admits(_ key: Value) -> Bool {
        guard integers != nil else { return true }
        if case .int = key { return true }
        return false
    }

    /// The object whose primary key is `key`, or nil.
    ///
    /// - Complexity: O(log n).
    subscript(key: Value) -> ObjectKey? {
        if let integers {
            guard case .int(let integer) = key else { return nil }
            return integers[integer]
        }
        return values?[key]
    }

    /// The integer index, not retained (see ``UnretainedIntegerKeyIndex``); nil for other keys.
    var unretainedIntegers: UnretainedIntegerKeyIndex? {
        integers.map { UnretainedIntegerKeyIndex(root: Unmanaged.passUnretained($0.root)) }
    }

    /// Stores `object` under `key`; returns the object it replaced. `key` should be admitted
    /// (``admits(_:)``, which callers check first): an integer index given another kind of key
    /// becomes a `Value`-keyed index of all its entries, so that the index stays right.
    ///
    /// - Complexity: O(log n).
    @discardableResult
    mutating func updateValue(_ object: ObjectKey, forKey key: Value) -> ObjectKey? {
        if integers != nil {
            if case .int(let integer) = key { return integers!.updateValue(object, forKey: integer) }
            var converted = SortedTree<Value, ObjectKey>()
            integers!.forEach { converted.updateValue($1, forKey: .int($0)) }
            integers = nil
            values = converted
        }
        return values!.updateValue(object, forKey: key)
    }

    /// Removes the entry for `key`; returns its object, or nil when there is none.
    ///
    /// - Complexity: O(log n).
    @discardableResult
    mutating func removeValue(forKey key: Value) -> ObjectKey? {
        if integers != nil {
            guard case .int(let integer) = key else { return nil }
            return integers!.removeValue(forKey: integer)
        }
        return values!.removeValue(forKey: key)
    }
}

/// A table's integer primary-key index (a required `Int` primary key) as one snapshot holds it,
/// held without a reference count: a lookup through it costs the index's descent alone, not the
/// snapshot's table lookup and the retains and releases of copying the table and the index out of
/// it (about a fifth of a primary-key lookup at 1,000 rows).
///
/// Safety: valid only while the snapshot it came from is alive and unchanged. A holder keeps the
/// version it was taken from pinned and drops it when that version, or the holder's write
/// transaction, moves on (the Realm layer keys it by its read key, which every new version and
/// every write instruction changes); a snapshot's nodes are never freed or changed while it lives
/// (a paged leaf's contents come and go under the node's own pins, as for any read).
package struct UnretainedIntegerKeyIndex {
    fileprivate let root: Unmanaged<SortedTree<Int64, ObjectKey>.Node>

    /// The object whose primary key is `key`, or nil.
    ///
    /// - Complexity: O(log n).
    package func object(forPrimaryKey key: Int64) -> ObjectKey? {
        root._withUnsafeGuaranteedRef { $0.value(for: key) }
    }
}

// MARK: - Pages

extension PrimaryKeyIndex {
    /// Writes the nodes that changed since the last checkpoint; returns where the root is.
    func writeChangedNodes(into pages: inout CheckpointPages) -> PagedTreeRoot {
        if let integers { return integers.writeChangedNodes(IntegerPrimaryKeyEntryCoding.self, into: &pages) }
        return values!.writeChangedNodes(PrimaryKeyEntryCoding.self, into: &pages)
    }

    /// Adds the pages of the tree (as the previous checkpoint wrote them) that the new checkpoint
    /// no longer reaches.
    func collectReplacedPages(kept: KeptPages, into freed: inout [UInt64], leaves: inout [FreedLeaf]) {
        integers?.collectReplacedPages(kept: kept, into: &freed, leaves: &leaves)
        values?.collectReplacedPages(kept: kept, into: &freed, leaves: &leaves)
    }

    /// Moves the full leaves of an integer index that a write transaction left behind (keys
    /// inserted in ascending order leave each leaf full as the next one starts) to `pages` (see
    /// ``SortedTree/spillFilledLeaves(_:into:isFilled:)``); an index of other keys stays as it is.
    ///
    /// - Returns: false when a write to `pages` failed.
    mutating func spillFilledLeaves(into pages: ScratchPages) -> Bool {
        guard integers != nil else { return true }
        return integers!.spillFilledLeaves(IntegerPrimaryKeyEntryCoding.self, into: pages) {
            $0.count == SortedTree<Int64, ObjectKey>.leafCapacity
        }
    }

    /// The index rooted at `root` in `file`, of the kind `schema` asks for, read lazily.
    static func paged(
        _ root: PagedTreeRoot, for schema: TableSchema, in file: PageFile, cache: NodeCache?,
        deltas: [UInt64: LeafDeltaHandle]
    ) -> Self {
        var index = PrimaryKeyIndex(for: schema)
        if index.integers != nil {
            index.integers = .paged(root, IntegerPrimaryKeyEntryCoding.self, in: file, cache: cache, deltas: deltas)
        } else {
            index.values = .paged(root, PrimaryKeyEntryCoding.self, in: file, cache: cache, deltas: deltas)
        }
        return index
    }

    /// Reads and checks every page of the index rooted at `root`, as lazy reads of the kind
    /// `schema` asks for would (an integer index's keys must be integers), recording what is
    /// damaged in `damage` (see ``SortedTree/verifyPages(_:_:in:deltas:reached:damage:structure:check:)``).
    static func verifyPages(_ root: PagedTreeRoot, for schema: TableSchema, in file: PageFile,
                            deltas: [UInt64: LeafDeltaHandle], reached: inout Set<UInt64>,
                            damage: inout DamageCollector) throws {
        let structure = "the primary-key index of table \(schema.name)"
        if usesIntegers(schema) {
            try SortedTree<Int64, ObjectKey>.verifyPages(root, IntegerPrimaryKeyEntryCoding.self, in: file,
                                                         deltas: deltas, reached: &reached, damage: &damage,
                                                         structure: structure)
        } else {
            try SortedTree<Value, ObjectKey>.verifyPages(root, PrimaryKeyEntryCoding.self, in: file, deltas: deltas,
                                                         reached: &reached, damage: &damage, structure: structure)
        }
    }
}
