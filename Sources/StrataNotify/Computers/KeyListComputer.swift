import StrataEngine

/// Change sets for any ordered collection that can be read from a snapshot (a query over a list,
/// linking objects, a set, a query with `DISTINCT` or `LIMIT`), by comparing its elements at
/// the two versions.
///
/// Only collections whose inputs changed are compared at all; the comparison itself is
/// O(n log n) in the collection's size, so this computer is for collections that are small or
/// rarely change. Whole-table queries use ``TableResultsComputer``.
package struct KeyListComputer: ChangeComputer {
    /// The elements: links for objects, the values themselves for primitives.
    package typealias State = [Value]

    let read: @Sendable (Snapshot) -> [Value]
    /// What counts as a modification of an element object (nil for primitives).
    let watch: WatchNode?
    /// Tables whose changes can affect the collection's membership or order; nil means any.
    let inputs: Set<TableKey>?

    /// Creates a computer that reads the collection with `read`.
    package init(inputs: Set<TableKey>?, watch: WatchNode?, read: @escaping @Sendable (Snapshot) -> [Value]) {
        self.read = read
        self.watch = watch
        self.inputs = inputs
    }

    package func initialState(at snapshot: Snapshot) -> [Value] { read(snapshot) }

    package func advance(_ state: [Value], from old: Snapshot, to new: Snapshot,
                        changes: CombinedChanges) -> ([Value], CollectionChangeSet?) {
        let touched = changes.requiresFullComparison || inputs.map { !$0.isDisjoint(with: changes.tables.keys) } ?? true
        let elements = touched ? read(new) : state
        var checker = ChangeChecker(changes: changes, old: old, new: new)
        var affected: [TableKey: Set<ObjectKey>] = [:]
        let change = CollectionChangeSet.diff(old: state, new: elements) { element in
            guard let watch, let link = element.link else { return false }
            if affected[link.table] == nil { affected[link.table] = checker.affected(watch, in: link.table) }
            return affected[link.table]!.contains(link.key)
        }
        return (elements, change.isEmpty ? nil : change)
    }
}
