import StrataEngine

/// Finds the objects of a table that changed according to a ``WatchNode``, from merged changes
/// and the snapshots before and after them.
///
/// It works backwards from what changed, never over the whole table: an object is affected when
/// a watched column of its own changed, or when a watched object it reaches changed (found by
/// following backlinks, in both snapshots, from the changed object to the watching one). The
/// cost grows with the number of changed objects and their links, not with the table's size.
package struct ChangeChecker {
    let changes: CombinedChanges
    let old: Snapshot
    let new: Snapshot
    private var deepCache: [Int: [TableKey: Set<ObjectKey>]] = [:]

    /// Creates a checker for the changes between `old` and `new`.
    package init(changes: CombinedChanges, old: Snapshot, new: Snapshot) {
        self.changes = changes
        self.old = old
        self.new = new
    }

    /// The objects of `table` (that exist in both snapshots or were modified) that changed
    /// according to `node`.
    package mutating func affected(_ node: WatchNode, in table: TableKey) -> Set<ObjectKey> {
        switch node {
        case .deep(let depth):
            return deepAffected(depth: depth)[table] ?? []
        case .paths(let columns, let steps):
            var result = Set<ObjectKey>()
            for (object, changed) in changes[table].modifications where !changed.isDisjoint(with: columns) {
                result.insert(object)
            }
            for step in steps {
                let inner = affected(step.node, in: step.target)
                switch step.direction {
                case .link(let column):
                    result.formUnion(linking(to: inner, in: step.target, from: table, column: column))
                case .backlink(let origin, let column):
                    // The objects the changed origins link to, and the targets that gained or lost
                    // an origin.
                    for object in inner { result.formUnion(targets(of: object, in: origin, column: column)) }
                    for (object, changed) in changes[origin].modifications where changed.contains(column) {
                        let before = Set(links(old, origin, object, column))
                        let after = Set(links(new, origin, object, column))
                        result.formUnion(before.symmetricDifference(after).filter { $0.table == table }.map(\.key))
                    }
                    for object in changes[origin].insertions {
                        result.formUnion(links(new, origin, object, column).filter { $0.table == table }.map(\.key))
                    }
                    for object in changes[origin].deletions {
                        result.formUnion(links(old, origin, object, column).filter { $0.table == table }.map(\.key))
                    }
                }
            }
            return result
        }
    }

    /// Whether `object` of `table` changed according to `node`.
    package mutating func isAffected(_ object: ObjectKey, in table: TableKey, by node: WatchNode) -> Bool {
        if case .deep(0) = node { return changes[table].modifications[object] != nil }
        return affected(node, in: table).contains(object)
    }

    /// Objects of `table` whose `column` links (in either snapshot) to one of `objects` of
    /// `target`.
    func linking(to objects: Set<ObjectKey>, in target: TableKey, from table: TableKey, column: Int?) -> Set<ObjectKey> {
        var result = Set<ObjectKey>()
        for object in objects {
            for snapshot in [old, new] {
                for backlink in snapshot.table(target)?.backlinks(to: object) ?? []
                where backlink.table == table && (column == nil || backlink.column == column) {
                    result.insert(backlink.object)
                }
            }
        }
        return result
    }

    /// The keys `object`'s `column` links to in either snapshot.
    func targets(of object: ObjectKey, in table: TableKey, column: Int) -> Set<ObjectKey> {
        Set(links(old, table, object, column).map(\.key) + links(new, table, object, column).map(\.key))
    }

    func links(_ snapshot: Snapshot, _ table: TableKey, _ object: ObjectKey, _ column: Int) -> [ObjectLink] {
        var result: [ObjectLink] = []
        snapshot.table(table)?.value(of: object, column: column)?.forEachLink { result.append($0) }
        return result
    }

    /// Every object, in any table, that was modified or links within `depth` hops to a modified
    /// object (Realm's deep change check). Computed once per depth.
    mutating func deepAffected(depth: Int) -> [TableKey: Set<ObjectKey>] {
        if let cached = deepCache[depth] { return cached }
        var reached: [TableKey: Set<ObjectKey>] = [:]
        var frontier: [ObjectLink] = []
        for (table, tableChanges) in changes.tables {
            for object in tableChanges.modifications.keys {
                reached[table, default: []].insert(object)
                frontier.append(ObjectLink(table: table, key: object))
            }
            // A deleted or inserted object is seen by its linkers through their link column.
        }
        var hops = 0
        while hops < depth, !frontier.isEmpty {
            var next: [ObjectLink] = []
            for link in frontier {
                for snapshot in [old, new] {
                    for backlink in snapshot.table(link.table)?.backlinks(to: link.key) ?? []
                    where reached[backlink.table, default: []].insert(backlink.object).inserted {
                        next.append(ObjectLink(table: backlink.table, key: backlink.object))
                    }
                }
            }
            frontier = next
            hops += 1
        }
        deepCache[depth] = reached
        return reached
    }
}
