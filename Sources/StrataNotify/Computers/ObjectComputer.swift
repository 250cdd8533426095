import StrataEngine

/// What happened to an observed object.
package enum ObjectChangeSet: Sendable {
    /// The object was deleted.
    case deleted
    /// Properties changed: each with its tag, and for stored columns the values before and after.
    case changed([PropertyChangeSet])
}

/// One changed property of an observed object.
package struct PropertyChangeSet: Sendable {
    /// The tag the observer gave the property (its index in the model class).
    package var tag: Int
    /// The stored value before and after, for a stored column.
    package var oldValue: Value?
    package var newValue: Value?
}

/// Change sets for one object: which of its properties changed, read from the commits'
/// summary (O(1) without key-path filters) or from the filters' watch nodes.
package struct ObjectComputer: ChangeComputer {
    /// Whether the object exists.
    package typealias State = Bool

    /// A watched property: its tag, its column (nil for linking objects) and what counts.
    package struct Property: Sendable {
        package var tag: Int
        package var column: Int?
        package var node: WatchNode

        /// Creates a watched property.
        package init(tag: Int, column: Int?, node: WatchNode) {
            self.tag = tag
            self.column = column
            self.node = node
        }
    }

    let table: TableKey
    let object: ObjectKey
    /// The properties the observer filters on; nil for every stored property (tags are columns).
    let filter: [Property]?

    /// Creates a computer for `object` of `table`.
    package init(table: TableKey, object: ObjectKey, filter: [Property]?) {
        self.table = table
        self.object = object
        self.filter = filter
    }

    package func initialState(at snapshot: Snapshot) -> Bool { snapshot.table(table)?.contains(object) == true }

    package func advance(_ exists: Bool, from old: Snapshot, to new: Snapshot,
                        changes: CombinedChanges) -> (Bool, ObjectChangeSet?) {
        guard exists else { return (false, nil) }
        guard new.table(table)?.contains(object) == true else { return (false, .deleted) }
        func property(_ tag: Int, _ column: Int?) -> PropertyChangeSet {
            PropertyChangeSet(tag: tag, oldValue: column.flatMap { old.table(table)?.value(of: object, column: $0) },
                              newValue: column.flatMap { new.table(table)?.value(of: object, column: $0) })
        }
        var changed: [PropertyChangeSet] = []
        if let filter {
            var checker = ChangeChecker(changes: changes, old: old, new: new)
            for watched in filter where checker.isAffected(object, in: table, by: watched.node) {
                changed.append(property(watched.tag, watched.column))
            }
        } else if changes.requiresFullComparison {
            let before = old.table(table)?.row(object)?.values ?? []
            let after = new.table(table)?.row(object)?.values ?? []
            for column in after.indices where column >= before.count || before[column] != after[column] {
                changed.append(property(column, column))
            }
        } else {
            for column in (changes[table].modifications[object] ?? []).sorted() {
                changed.append(property(column, column))
            }
        }
        return (true, changed.isEmpty ? nil : .changed(changed))
    }
}
