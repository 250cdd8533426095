import StrataStorage
import StrataSupport

/// A table's trees in a page file: its rows, primary-key index, secondary indexes and backlinks,
/// each a paged ``SortedTree`` (see `SortedTree+Pages.swift`) named by the catalog.
extension Table {
    /// Writes the nodes of the table's trees that changed since the last checkpoint into `pages`;
    /// returns the table's catalog entry.
    func writeChangedTrees(into pages: inout CheckpointPages) -> StoreCatalog.TableEntry {
        StoreCatalog.TableEntry(
            key: key, schema: schema, nextObjectKey: nextObjectKey,
            rows: rows.writeChangedNodes(RowEntryCoding.self, into: &pages,
                                         check: Self.rowCheck(columns: schema.columns.count)),
            primaryKeyIndex: primaryKeyIndex.writeChangedNodes(into: &pages),
            backlinks: backlinks.writeChangedNodes(BacklinkEntryCoding.self, into: &pages),
            secondaryIndexes: indexedColumns.sorted().map { column in
                (column, secondaryIndexes[column]!.writeChangedNodes(IndexEntryCoding.self, into: &pages))
            })
    }

    /// Adds to `freed` the pages of this table's trees (as the previous checkpoint wrote them)
    /// that the new checkpoint no longer reaches, and to `leaves` their freed leaves.
    func collectReplacedPages(kept: KeptPages, into freed: inout [UInt64], leaves: inout [FreedLeaf]) {
        rows.collectReplacedPages(kept: kept, into: &freed, leaves: &leaves)
        primaryKeyIndex.collectReplacedPages(kept: kept, into: &freed, leaves: &leaves)
        backlinks.collectReplacedPages(kept: kept, into: &freed, leaves: &leaves)
        for index in secondaryIndexes.values { index.collectReplacedPages(kept: kept, into: &freed, leaves: &leaves) }
    }

    /// What every row read from a page must satisfy: one value per column of the schema.
    private static func rowCheck(columns: Int) -> @Sendable (Row) -> Bool { { $0.count == columns } }

    /// The table `entry` names in `file`, its trees read lazily (see
    /// ``SortedTree/paged(_:_:in:cache:check:)``), their leaves admitted to `cache`: nothing is
    /// read until it is used.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file when the catalog's entry
    ///   contradicts the schema: the indexes are not those the schema asks for, or the
    ///   primary-key index does not hold one entry per row.
    static func paged(
        _ entry: StoreCatalog.TableEntry, in file: PageFile, cache: NodeCache?, deltas: [UInt64: LeafDeltaHandle] = [:]
    ) throws -> Table {
        func corrupt(_ why: String) -> StrataError {
            StrataError(.corruptFile, "table \(entry.schema.name) in \(file.path) is damaged: \(why)", path: file.path)
        }
        var table = Table(key: entry.key, schema: entry.schema)
        table.nextObjectKey = entry.nextObjectKey
        table.rows = .paged(entry.rows, RowEntryCoding.self, in: file, cache: cache, deltas: deltas,
                            check: rowCheck(columns: entry.schema.columns.count))
        table.primaryKeyIndex = .paged(entry.primaryKeyIndex, for: entry.schema, in: file, cache: cache, deltas: deltas)
        table.backlinks = .paged(entry.backlinks, BacklinkEntryCoding.self, in: file, cache: cache, deltas: deltas)
        guard entry.secondaryIndexes.map(\.column) == table.indexedColumns.sorted() else {
            throw corrupt("its indexes are on columns \(entry.secondaryIndexes.map(\.column)), its schema indexes "
                              + "\(table.indexedColumns.sorted())")
        }
        for (column, root) in entry.secondaryIndexes {
            table.secondaryIndexes[column] = .paged(root, IndexEntryCoding.self, in: file, cache: cache, deltas: deltas)
        }
        let expectedKeys = entry.schema.primaryKeyIndex == nil ? 0 : entry.rows.count
        guard entry.primaryKeyIndex.count == expectedKeys else {
            throw corrupt("its primary-key index holds \(entry.primaryKeyIndex.count) entries for \(entry.rows.count) "
                              + "objects")
        }
        return table
    }

    /// Reads and checks every page of the trees `entry` names as lazy reads do (see
    /// ``SortedTree/verifyPages(_:_:in:deltas:reached:damage:structure:check:)``; rows must have the
    /// schema's column count), adding each page to `reached` and what is damaged to `damage`.
    static func verifyPages(
        _ entry: StoreCatalog.TableEntry, in file: PageFile, deltas: [UInt64: LeafDeltaHandle],
        reached: inout Set<UInt64>, damage: inout DamageCollector
    ) throws {
        let name = entry.schema.name
        try SortedTree<ObjectKey, Row>.verifyPages(entry.rows, RowEntryCoding.self, in: file, deltas: deltas,
                                                   reached: &reached, damage: &damage,
                                                   structure: "the objects of table \(name)",
                                                   check: rowCheck(columns: entry.schema.columns.count))
        try PrimaryKeyIndex.verifyPages(entry.primaryKeyIndex, for: entry.schema, in: file, deltas: deltas,
                                        reached: &reached, damage: &damage)
        try SortedTree<ObjectKey, BacklinkCounts>.verifyPages(entry.backlinks, BacklinkEntryCoding.self, in: file,
                                                              deltas: deltas, reached: &reached, damage: &damage,
                                                              structure: "the backlinks of table \(name)")
        for (column, root) in entry.secondaryIndexes {
            let columnName = entry.schema.columns.indices.contains(column) ? entry.schema.columns[column].name
                : "\(column)"
            try SecondaryIndex.verifyPages(root, IndexEntryCoding.self, in: file, deltas: deltas, reached: &reached,
                                           damage: &damage, structure: "the index of \(name).\(columnName)")
        }
    }
}

// MARK: - A large transaction's rows

extension Table {
    /// Moves the leaves a write transaction creating objects in key order filled and left behind
    /// to `pages` (see ``SortedTree/spillFilledLeaves(_:into:isFilled:)``): leaves of rows (packed
    /// as each filled) and, for an integer primary key given in ascending order too, full leaves
    /// of the primary-key index.
    ///
    /// - Returns: false when a write to `pages` failed.
    mutating func spillFilledLeaves(into pages: ScratchPages) -> Bool {
        rows.spillFilledLeaves(RowEntryCoding.self, into: pages) { $0.holdsPackedRows }
            && primaryKeyIndex.spillFilledLeaves(into: pages)
    }
}

extension Snapshot {
    /// Moves the filled leaves of table `key` to `pages` (see ``Table/spillFilledLeaves(into:)``);
    /// for a write transaction's own snapshot.
    ///
    /// - Returns: false when a write to `pages` failed.
    mutating func spillFilledLeaves(of key: TableKey, into pages: ScratchPages) -> Bool {
        tables[key]?.spillFilledLeaves(into: pages) ?? true
    }
}
