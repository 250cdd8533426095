import StrataEngine

/// What changed in a map, as keys (Realm's `RealmMapChange`), each list in the map's key order.
package struct MapChangeSet: Sendable, Equatable {
    /// Keys that were removed.
    package var deletions: [String]
    /// Keys that were added.
    package var insertions: [String]
    /// Keys whose value changed (including a linked object that was deleted or changed).
    package var modifications: [String]

    /// Whether nothing changed.
    package var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }
}

/// Change sets for a map property, by comparing its entries at the two versions when the map
/// (or an object it links to) changed.
///
/// - Complexity: O(map size) per commit that changed the map or its values.
package struct MapComputer: ChangeComputer {
    /// The map at a version.
    package typealias State = ValueMap

    let path: PropertyPath
    let watch: WatchNode?

    /// Creates a computer for the map at `path`.
    package init(path: PropertyPath, watch: WatchNode?) {
        self.path = path
        self.watch = watch
    }

    static func entries(at path: PropertyPath, in snapshot: Snapshot) -> ValueMap {
        if case .dictionary(let map)? = snapshot.table(path.table)?.value(of: path.object, column: path.column) { return map }
        return ValueMap()
    }

    package func initialState(at snapshot: Snapshot) -> ValueMap { Self.entries(at: path, in: snapshot) }

    package func advance(_ state: ValueMap, from old: Snapshot, to new: Snapshot,
                        changes: CombinedChanges) -> (ValueMap, MapChangeSet?) {
        let map = Self.entries(at: path, in: new)
        var checker = ChangeChecker(changes: changes, old: old, new: new)
        var affected: [TableKey: Set<ObjectKey>] = [:]
        var change = MapChangeSet(deletions: [], insertions: [], modifications: [])
        for (key, value) in state {
            guard let current = map[key] else {
                change.deletions.append(key)
                continue
            }
            if current != value {
                change.modifications.append(key)
            } else if let watch, let link = value.link {
                if affected[link.table] == nil { affected[link.table] = checker.affected(watch, in: link.table) }
                if affected[link.table]!.contains(link.key) { change.modifications.append(key) }
            }
        }
        for (key, _) in map where state[key] == nil { change.insertions.append(key) }
        return (map, change.isEmpty ? nil : change)
    }
}
