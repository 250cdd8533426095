import StrataEngine

/// What a run of consecutive commits changed, merged: per table, the objects inserted, deleted
/// and modified (with their columns), and, per collection property, its edits in order.
///
/// Merging follows the commits' order: an object inserted and later deleted appears nowhere; an
/// inserted object is not also modified; a deleted one is only deleted.
package struct CombinedChanges: Sendable {
    /// The per-table changes.
    package private(set) var tables: [TableKey: TableChanges] = [:]
    /// Collection instructions per property, in commit order (list, set and dictionary edits,
    /// and whole-value replacements of collection columns).
    package private(set) var collectionEdits: [PropertyPath: [Instruction]] = [:]
    /// Whether a schema changed, or the changesets were not available: computations must then
    /// compare the two snapshots instead of trusting these summaries.
    package private(set) var requiresFullComparison = false
    /// The versions the changes lead from and to.
    package let fromVersion: UInt64
    package let toVersion: UInt64

    /// Merges `changesets` (consecutive, oldest first), or marks the changes unknown when they are
    /// nil.
    ///
    /// - Complexity: O(changed objects + collection edits).
    package init(_ changesets: [Changeset]?, from: UInt64, to: UInt64) {
        fromVersion = from
        toVersion = to
        guard let changesets else {
            requiresFullComparison = true
            return
        }
        for changeset in changesets {
            for (table, summary) in changeset.summary.tables {
                if summary.schemaChanged { requiresFullComparison = true }
                tables[table, default: TableChanges()].merge(summary)
            }
            for instruction in changeset.collectionEdits {
                switch instruction {
                case .list(let path, _), .set(let path, _), .dictionary(let path, _), .setValue(let path, _):
                    collectionEdits[path, default: []].append(instruction)
                default: break
                }
            }
        }
    }

    /// The changes of one table, empty when it did not change.
    package subscript(table: TableKey) -> TableChanges { tables[table] ?? TableChanges() }

    /// Whether nothing changed.
    package var isEmpty: Bool { tables.values.allSatisfy(\.isEmpty) && !requiresFullComparison }
}

/// The merged changes of one table.
package struct TableChanges: Sendable {
    /// Objects that did not exist before and do after.
    package private(set) var insertions: Set<ObjectKey> = []
    /// Objects that existed before and do not after.
    package private(set) var deletions: Set<ObjectKey> = []
    /// Objects that existed before and after, with the columns that changed.
    package private(set) var modifications: [ObjectKey: Set<Int>] = [:]

    /// Whether nothing changed.
    package var isEmpty: Bool { insertions.isEmpty && deletions.isEmpty && modifications.isEmpty }

    /// Every object that was inserted, deleted or modified.
    package var touched: Set<ObjectKey> { insertions.union(deletions).union(modifications.keys) }

    mutating func merge(_ summary: TableChangeSummary) {
        insertions.formUnion(summary.insertions)
        for object in summary.deletions {
            modifications[object] = nil
            if insertions.remove(object) == nil { deletions.insert(object) }
        }
        for (object, columns) in summary.modifications where !insertions.contains(object) {
            modifications[object, default: []].formUnion(columns)
        }
    }
}
