import StrataEngine

/// Change sets for a list property, from the list instructions of the commits: each insert,
/// erase, replace and move is replayed on a map from new positions to old ones, so that
/// replacing the element at slot i is a modification at i (as in Realm) and a move is a
/// deletion plus an insertion. Elements that are objects are also modified when they change
/// according to the watch node.
///
/// - Complexity: O(list length) per commit that changed the list or its elements.
package struct ListComputer: ChangeComputer {
    /// The list's elements at a version (empty when the owner does not exist).
    package typealias State = [Value]

    let path: PropertyPath
    let watch: WatchNode?

    /// Creates a computer for the list at `path`.
    package init(path: PropertyPath, watch: WatchNode?) {
        self.path = path
        self.watch = watch
    }

    static func elements(at path: PropertyPath, in snapshot: Snapshot) -> [Value] {
        switch snapshot.table(path.table)?.value(of: path.object, column: path.column) {
        case .list(let elements)?, .set(let elements)?: return elements
        default: return []
        }
    }

    package func initialState(at snapshot: Snapshot) -> [Value] { Self.elements(at: path, in: snapshot) }

    package func advance(_ state: [Value], from old: Snapshot, to new: Snapshot,
                        changes: CombinedChanges) -> ([Value], CollectionChangeSet?) {
        let elements = Self.elements(at: path, in: new)
        var origin: [Int?] = Array(0..<state.count)
        var replaced = Set<Int>()
        var replayed = !changes.requiresFullComparison
        if changes[path.table].deletions.contains(path.object) {
            origin = []
        } else if replayed {
            for instruction in changes.collectionEdits[path] ?? [] {
                switch instruction {
                case .list(_, .insert(let index, _)) where index <= origin.count:
                    origin.insert(nil, at: index)
                case .list(_, .erase(let index)) where index < origin.count:
                    origin.remove(at: index)
                case .list(_, .set(let index, _)) where index < origin.count:
                    if let source = origin[index] { replaced.insert(source) }
                case .list(_, .move(let from, let to)) where from < origin.count && to < origin.count:
                    origin.remove(at: from)
                    origin.insert(nil, at: to)
                case .list(_, .clear):
                    origin = []
                case .setValue(_, .list(let values)):
                    origin = Array(repeating: nil, count: values.count)
                default:
                    replayed = false
                }
            }
            if origin.count != elements.count { replayed = false }
        }
        var checker = ChangeChecker(changes: changes, old: old, new: new)
        var affected: [TableKey: Set<ObjectKey>] = [:]
        func isModified(_ element: Value) -> Bool {
            guard let watch, let link = element.link else { return false }
            if affected[link.table] == nil { affected[link.table] = checker.affected(watch, in: link.table) }
            return affected[link.table]!.contains(link.key)
        }
        guard replayed else {
            let change = CollectionChangeSet.diff(old: state, new: elements, isModified: isModified)
            return (elements, change.isEmpty ? nil : change)
        }
        let survivors = Set(origin.compactMap { $0 })
        let deletions = state.indices.filter { !survivors.contains($0) }
        let insertions = origin.indices.filter { origin[$0] == nil }
        let modifications = origin.compactMap { $0 }.filter { replaced.contains($0) || isModified(state[$0]) }
        let change = CollectionChangeSet(deletions: deletions, insertions: insertions, modifications: modifications)
        return (elements, change.isEmpty ? nil : change)
    }
}
