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
            rows: rows.writeChangedNodes(RowEntryCoding.self, into: &pages),
            primaryKeyIndex: primaryKeyIndex.writeChangedNodes(PrimaryKeyEntryCoding.self, into: &pages),
            backlinks: backlinks.writeChangedNodes(BacklinkEntryCoding.self, into: &pages),
            secondaryIndexes: indexedColumns.sorted().map { column in
                (column, secondaryIndexes[column]!.writeChangedNodes(IndexEntryCoding.self, into: &pages))
            })
    }

    /// Adds to `freed` the pages of this table's trees (as the previous checkpoint wrote them)
    /// that the new checkpoint no longer reaches.
    func collectReplacedPages(kept: Set<UInt64>, into freed: inout [UInt64]) {
        rows.collectReplacedPages(kept: kept, into: &freed)
        primaryKeyIndex.collectReplacedPages(kept: kept, into: &freed)
        backlinks.collectReplacedPages(kept: kept, into: &freed)
        for index in secondaryIndexes.values { index.collectReplacedPages(kept: kept, into: &freed) }
    }

    /// Reads the table `entry` names from `file`, adding every page read to `reached`.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file (and page) when a tree is
    ///   damaged (see ``SortedTree/load(_:_:from:reached:)``), a row's value count differs from
    ///   the schema's column count, the indexes are not those the schema asks for, or the
    ///   primary-key index does not hold one entry per row.
    static func load(_ entry: StoreCatalog.TableEntry, from file: PageFile, reached: inout Set<UInt64>) throws -> Table {
        func corrupt(_ why: String) -> StrataError {
            StrataError(.corruptFile, "table \(entry.schema.name) in \(file.path) is damaged: \(why)", path: file.path)
        }
        var table = Table(key: entry.key, schema: entry.schema)
        table.nextObjectKey = entry.nextObjectKey
        table.rows = try .load(entry.rows, RowEntryCoding.self, from: file, reached: &reached)
        table.primaryKeyIndex = try .load(entry.primaryKeyIndex, PrimaryKeyEntryCoding.self, from: file, reached: &reached)
        table.backlinks = try .load(entry.backlinks, BacklinkEntryCoding.self, from: file, reached: &reached)
        guard entry.secondaryIndexes.map(\.column) == table.indexedColumns.sorted() else {
            throw corrupt("its indexes are on columns \(entry.secondaryIndexes.map(\.column)), its schema indexes "
                              + "\(table.indexedColumns.sorted())")
        }
        for (column, root) in entry.secondaryIndexes {
            table.secondaryIndexes[column] = try .load(root, IndexEntryCoding.self, from: file, reached: &reached)
        }
        let expectedKeys = entry.schema.primaryKeyIndex == nil ? 0 : table.rows.count
        guard table.primaryKeyIndex.count == expectedKeys else {
            throw corrupt("its primary-key index holds \(table.primaryKeyIndex.count) entries for \(table.rows.count) objects")
        }
        let columns = entry.schema.columns.count
        var malformed: ObjectKey?
        table.rows.forEachLeaf { keys, rows in
            for index in rows.indices where malformed == nil && rows[index].values.count != columns {
                malformed = keys[index]
            }
        }
        if let malformed { throw corrupt("object \(malformed) does not have the \(columns) values its schema says") }
        return table
    }
}
