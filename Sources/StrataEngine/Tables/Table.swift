/// One table of a snapshot: its schema, its rows ordered by object key, a primary-key index,
/// secondary indexes and the backlinks of its objects.
///
/// A `Table` is an immutable value inside a ``Snapshot``; copying it is O(1) and the
/// transaction that changes it copies only the paths it touches.
package struct Table: Sendable {
    /// The table's stable key.
    package let key: TableKey
    /// Everything else, shared by copies of the table until one of them changes (copy on write):
    /// copying a `Table` out of a snapshot, which every read and write does, costs one retain
    /// instead of one per tree and array.
    private var storage: Storage

    /// The table's schema.
    package internal(set) var schema: TableSchema {
        get { storage.schema }
        set { makeUnique(); storage.schema = newValue }
        _modify { makeUnique(); yield &storage.schema }
    }
    /// The rows, ascending by object key.
    var rows: SortedTree<ObjectKey, Row> {
        get { storage.rows }
        set { makeUnique(); storage.rows = newValue }
        _modify { makeUnique(); yield &storage.rows }
    }
    /// The next object key to hand out; keys are never reused.
    var nextObjectKey: Int64 {
        get { storage.nextObjectKey }
        set { makeUnique(); storage.nextObjectKey = newValue }
    }
    /// Primary key value → object, when the schema has a primary key.
    var primaryKeyIndex: PrimaryKeyIndex {
        get { storage.primaryKeyIndex }
        set { makeUnique(); storage.primaryKeyIndex = newValue }
        _modify { makeUnique(); yield &storage.primaryKeyIndex }
    }
    /// Column index → ordered (value, object) entries, for indexed columns.
    var secondaryIndexes: [Int: SecondaryIndex] {
        get { storage.secondaryIndexes }
        set { makeUnique(); storage.secondaryIndexes = newValue }
        _modify { makeUnique(); yield &storage.secondaryIndexes }
    }
    /// The keys of `secondaryIndexes`, so index maintenance never iterates the dictionary it
    /// mutates (which would make it shared and copy every index on every insert).
    var indexedColumns: [Int] {
        get { storage.indexedColumns }
        set { makeUnique(); storage.indexedColumns = newValue }
    }
    /// Object → the links pointing at it.
    var backlinks: SortedTree<ObjectKey, BacklinkCounts> {
        get { storage.backlinks }
        set { makeUnique(); storage.backlinks = newValue }
        _modify { makeUnique(); yield &storage.backlinks }
    }

    /// The parts of a table behind ``Table``'s copy on write.
    //
    // Safety: a `Storage` is written only through a `Table` holding the only reference to it
    // (`makeUnique()` copies a shared one first), so storage reachable from several snapshots or
    // threads is never written. Accesses to its fields never overlap for the same reason they
    // did not when they were the fields of the `Table` value (the compiler checks those
    // statically), so the dynamic exclusivity checks are off.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var schema: TableSchema
        @exclusivity(unchecked) var rows: SortedTree<ObjectKey, Row>
        @exclusivity(unchecked) var nextObjectKey: Int64
        @exclusivity(unchecked) var primaryKeyIndex: PrimaryKeyIndex
        @exclusivity(unchecked) var secondaryIndexes: [Int: SecondaryIndex]
        @exclusivity(unchecked) var indexedColumns: [Int]
        @exclusivity(unchecked) var backlinks: SortedTree<ObjectKey, BacklinkCounts>

        /// An empty table's storage.
        convenience init(schema: TableSchema) {
            self.init(schema: schema, rows: SortedTree(), nextObjectKey: 0, primaryKeyIndex: PrimaryKeyIndex(for: schema),
                      secondaryIndexes: [:], indexedColumns: [], backlinks: SortedTree())
        }

        init(schema: TableSchema, rows: SortedTree<ObjectKey, Row>, nextObjectKey: Int64,
             primaryKeyIndex: PrimaryKeyIndex, secondaryIndexes: [Int: SecondaryIndex],
             indexedColumns: [Int], backlinks: SortedTree<ObjectKey, BacklinkCounts>) {
            self.schema = schema
            self.rows = rows
            self.nextObjectKey = nextObjectKey
            self.primaryKeyIndex = primaryKeyIndex
            self.secondaryIndexes = secondaryIndexes
            self.indexedColumns = indexedColumns
            self.backlinks = backlinks
        }

        /// A copy sharing every tree and array (one allocation: the copy itself).
        func copy() -> Storage {
            Storage(schema: schema, rows: rows, nextObjectKey: nextObjectKey, primaryKeyIndex: primaryKeyIndex,
                    secondaryIndexes: secondaryIndexes, indexedColumns: indexedColumns, backlinks: backlinks)
        }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    init(key: TableKey, schema: TableSchema) {
        self.key = key
        storage = Storage(schema: schema)
        rebuildIndexes()
    }

    // MARK: - Reading

    /// The number of objects.
    ///
    /// - Complexity: O(1).
    package var count: Int { rows.count }

    /// The row of `object`, or nil if it does not exist.
    ///
    /// - Complexity: O(log n).
    package func row(_ object: ObjectKey) -> Row? { rows[object] }

    /// The rows of `objects`, in their order (nil for an object that does not exist); runs of
    /// ascending keys in one leaf share one descent of the tree.
    ///
    /// - Complexity: O(k log n), O(k + log n) for k adjacent ascending keys.
    package func rows(_ objects: [ObjectKey]) -> [Row?] { rows.values(for: objects) }

    /// Whether `object` exists.
    ///
    /// - Complexity: O(log n).
    package func contains(_ object: ObjectKey) -> Bool { rows.contains(object) }

    /// The value of `column` of `object`, or nil if the object does not exist.
    ///
    /// - Complexity: O(log n).
    package func value(of object: ObjectKey, column: Int) -> Value? { rows[object]?[column] }

    /// Every object key, ascending.
    ///
    /// - Complexity: O(n).
    package var objectKeys: [ObjectKey] { rows.keys }

    /// Calls `body` for every object in ascending key order.
    ///
    /// - Complexity: O(n).
    package func forEachObject(_ body: (ObjectKey, Row) throws -> Void) rethrows {
        try rows.forEachLeaf { keys, rows in
            try Row.forEachIndex(prefetching: rows) { try body(keys[$0], rows[$0]) }
        }
    }

    /// Calls `body` for every object in ascending key order with its row borrowed in place (a
    /// scan's inner loop: nothing is copied or retained per object).
    ///
    /// - Complexity: O(n).
    package func forEachRow(_ body: (ObjectKey, UnsafePointer<Row>) throws -> Void) rethrows {
        try rows.forEachLeaf { keys, rows in
            guard let base = rows.baseAddress else { return }
            try Row.forEachIndex(prefetching: rows) { try body(keys[$0], base + $0) }
        }
    }

    /// Calls `body` with each leaf's object keys and rows, in ascending key order, borrowed in
    /// place (a scan that tests a leaf's rows together: see ``RowBlock``). With `packingRows`,
    /// the leaves of rows written since the last checkpoint are packed first (see
    /// ``SortedTree/forEachLeaf(packingRows:_:)``): pass it for a table of a published snapshot,
    /// not a write transaction's (whose instructions share the rows until it commits, so that
    /// packing them would hold them twice).
    ///
    /// - Complexity: O(n).
    package func forEachLeaf(
        packingRows: Bool = false, _ body: (UnsafeBufferPointer<ObjectKey>, UnsafeBufferPointer<Row>) throws -> Void
    ) rethrows {
        try rows.forEachLeaf(packingRows: packingRows, body)
    }

    /// The position of `object` in key order.
    ///
    /// - Complexity: O(log n).
    package func position(of object: ObjectKey) -> Int? { rows.index(of: object) }

    /// The schema of the column at `index`, or nil when there is none (without copying the whole
    /// table schema: a property set reads only its column).
    ///
    /// - Complexity: O(1).
    package func column(_ index: Int) -> ColumnSchema? {
        storage.schema.columns.indices.contains(index) ? storage.schema.columns[index] : nil
    }

    /// The check of a value for `column` when it is a plain scalar column (see
    /// ``TableSchema/scalarChecks``) other than the primary key; nil otherwise, or when there is
    /// no such column. Reads the schema in place.
    ///
    /// - Complexity: O(1).
    func plainScalarCheck(_ column: Int) -> ScalarCheck? {
        guard storage.schema.scalarChecks.indices.contains(column), column != storage.schema.primaryKeyIndex else {
            return nil
        }
        return storage.schema.scalarChecks[column]
    }

    /// The index of the primary-key column, if any.
    ///
    /// - Complexity: O(1).
    package var primaryKeyColumn: Int? { storage.schema.primaryKeyIndex }

    /// The objects at positions `position ..< position + count` in key order (fewer at the end).
    ///
    /// - Complexity: O(log n + count).
    package func objects(from position: Int, count: Int) -> [ObjectKey] { rows.keys(from: position, count: count) }

    /// The objects after `object` (from the first when nil) to the end of the leaf that holds the
    /// first of them, with their rows, borrowed from the leaf (the slices hold its arrays; the leaf
    /// is read once, through a full cache without keeping it); empty after the last object. The
    /// next batch of an iteration that reads the rows too: the rows are neither copied nor
    /// retained one by one.
    ///
    /// - Complexity: O(log n).
    package func leafOfObjects(after object: ObjectKey?) -> (objects: ArraySlice<ObjectKey>, rows: ArraySlice<Row>) {
        var leaf: (objects: ArraySlice<ObjectKey>, rows: ArraySlice<Row>) = ([], [])
        let bound: ObjectKey
        if let object {
            guard object.rawValue < Int64.max else { return leaf }
            bound = ObjectKey(object.rawValue + 1)
        } else {
            bound = ObjectKey(Int64.min)
        }
        rows.forEachLeaf(from: bound) { keys, rows in
            guard !keys.isEmpty else { return true }
            leaf = (keys, rows)
            return false
        }
        return leaf
    }

    /// Whether `other` is this table at the same version: a copy of it that nothing changed
    /// since (they share their storage), so its rows are this table's.
    ///
    /// - Complexity: O(1).
    package func isUnchanged(from other: Table) -> Bool { key == other.key && storage === other.storage }

    /// The object at `position` in key order.
    ///
    /// - Complexity: O(log n).
    package func object(at position: Int) -> ObjectKey { rows.element(at: position).key }

    /// The object whose primary key is `value`.
    ///
    /// - Complexity: O(log n).
    package func object(forPrimaryKey value: Value) -> ObjectKey? { primaryKeyIndex[value] }

    /// The objects whose `column` equals `value`, ascending; uses the index when the column has
    /// one, otherwise scans.
    ///
    /// - Complexity: O(log n + k) with an index, O(n) without.
    package func objects(where column: Int, equals value: Value) -> [ObjectKey] {
        if column == schema.primaryKeyIndex { return primaryKeyIndex[value].map { [$0] } ?? [] }
        if let index = secondaryIndexes[column] { return index.objects(equalTo: value) }
        var found: [ObjectKey] = []
        rows.forEach { key, row in if row[column] == value { found.append(key) } }
        return found
    }

    /// The links pointing at `object`.
    ///
    /// - Complexity: O(log n + k).
    package func backlinks(to object: ObjectKey) -> [Backlink] {
        guard let counts = backlinks[object] else { return [] }
        return counts.counts.flatMap { origin, count in repeatElement(origin, count: count) }
            .sorted { ($0.table, $0.column, $0.object) < ($1.table, $1.column, $1.object) }
    }

    /// The number of links pointing at `object`.
    ///
    /// - Complexity: O(log n + k).
    package func backlinkCount(to object: ObjectKey) -> Int {
        backlinks[object]?.counts.values.reduce(0, +) ?? 0
    }

    // MARK: - Index maintenance

    /// Rebuilds the primary-key and secondary indexes from the rows (after a schema change).
    ///
    /// - Complexity: O(n log n).
    mutating func rebuildIndexes() {
        primaryKeyIndex = PrimaryKeyIndex(for: schema)
        secondaryIndexes = [:]
        indexedColumns = schema.columns.indices.filter { schema.columns[$0].isIndexed }
        for column in indexedColumns { secondaryIndexes[column] = SecondaryIndex() }
        let primaryKey = schema.primaryKeyIndex
        guard primaryKey != nil || !secondaryIndexes.isEmpty else { return }
        var copy = self
        rows.forEach { key, row in copy.index(row, as: key, primaryKey: primaryKey) }
        primaryKeyIndex = copy.primaryKeyIndex
        secondaryIndexes = copy.secondaryIndexes
    }

    mutating func index(_ row: Row, as key: ObjectKey, primaryKey: Int?) {
        if let primaryKey { primaryKeyIndex.updateValue(key, forKey: row[primaryKey]) }
        for column in indexedColumns { addToIndex(column: column, value: row[column], key: key) }
    }

    mutating func unindex(_ row: Row, as key: ObjectKey) {
        if let primaryKey = schema.primaryKeyIndex { primaryKeyIndex.removeValue(forKey: row[primaryKey]) }
        for column in indexedColumns { removeFromIndex(column: column, value: row[column], key: key) }
    }

    /// Whether `values` (a new row) has a primary key of the kind the table's index holds.
    func admitsPrimaryKey(of values: [Value]) -> Bool {
        guard let primaryKey = schema.primaryKeyIndex else { return true }
        return primaryKeyIndex.admits(values[primaryKey])
    }

    /// Whether `value` may be stored in `column` as far as the primary-key index is concerned.
    func admitsPrimaryKey(_ value: Value, inColumn column: Int) -> Bool {
        column != schema.primaryKeyIndex || primaryKeyIndex.admits(value)
    }

    mutating func reindex(column: Int, from old: Value, to new: Value, key: ObjectKey) {
        if column == schema.primaryKeyIndex {
            primaryKeyIndex.removeValue(forKey: old)
            primaryKeyIndex.updateValue(key, forKey: new)
        }
        if indexedColumns.contains(column) {
            removeFromIndex(column: column, value: old, key: key)
            addToIndex(column: column, value: new, key: key)
        }
    }

    private mutating func addToIndex(column: Int, value: Value, key: ObjectKey) {
        secondaryIndexes[column]!.updateValue((), forKey: IndexEntry(value: value, object: key))
    }

    private mutating func removeFromIndex(column: Int, value: Value, key: ObjectKey) {
        secondaryIndexes[column]!.removeValue(forKey: IndexEntry(value: value, object: key))
    }
}
