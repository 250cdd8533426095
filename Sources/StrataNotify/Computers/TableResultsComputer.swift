import StrataEngine
import StrataQuery

/// Change sets for a query over a whole table, computed incrementally.
///
/// The state keeps the matching objects in an order-statistic tree keyed by (sort values,
/// object key), the order the query returns them in. After a commit only the objects that
/// changed (or that link, within the query's reach, to one that changed) are re-evaluated; each
/// one's old and new index is a rank lookup. Cost: O(k log n) for k changed objects, whatever
/// the result's size n. Queries with `DISTINCT` / `LIMIT` or a path through backlinks are not
/// incremental: ``KeyListComputer`` serves them.
package struct TableResultsComputer: ChangeComputer {
    /// The state: the ordered matches at a version.
    package struct Matches: Sendable {
        let query: CompiledQuery
        let ordered: SortedTree<OrderedMatch, Void>
        /// The number of matches.
        package var count: Int { ordered.count }
        /// The matching objects in order.
        package var keys: [ObjectKey] { ordered.matchedObjects }
        /// The match at `index`.
        ///
        /// - Complexity: O(log n).
        package func key(at index: Int) -> ObjectKey { ordered.matchedObject(at: index) }
    }

    let parsed: ParsedQuery
    let tableName: String
    /// What counts as a modification of a matching object.
    let watch: WatchNode

    /// Creates a computer for `query` over the table named `tableName`, reporting modifications
    /// according to `watch`.
    package init(query: ParsedQuery, tableName: String, watch: WatchNode) {
        parsed = query
        self.tableName = tableName
        self.watch = watch
    }

    /// Whether `query` can be maintained incrementally on `snapshot`'s schema.
    package static func supports(_ query: ParsedQuery, tableName: String, in snapshot: Snapshot) -> Bool {
        guard let table = snapshot.tableKey(named: tableName),
              let compiled = try? CompiledQuery(query, snapshot: snapshot, table: table) else { return true }
        return !compiled.dependsOnWholeResult && compiled.linkDepth != nil
    }

    package func initialState(at snapshot: Snapshot) -> Matches? {
        guard let table = snapshot.tableKey(named: tableName),
              let query = try? CompiledQuery(parsed, snapshot: snapshot, table: table) else { return nil }
        var ordered = SortedTree<OrderedMatch, Void>()
        let ascending = query.sortAscending
        for key in query.run(on: snapshot) {
            ordered.insertMatch(OrderedMatch(key: key, sortValues: query.sortValues(of: key, in: snapshot),
                                             ascending: ascending))
        }
        return Matches(query: query, ordered: ordered)
    }

    package func advance(_ state: Matches?, from old: Snapshot, to new: Snapshot,
                        changes: CombinedChanges) -> (Matches?, CollectionChangeSet?) {
        guard let state, !changes.requiresFullComparison else {
            return rebuild(state, old: old, new: new, changes: changes)
        }
        let query = state.query
        let table = query.table
        var checker = ChangeChecker(changes: changes, old: old, new: new)
        // Objects whose membership or position may have changed.
        let tableChanges = changes[table]
        var candidates = tableChanges.touched
        if let depth = query.linkDepth, depth > 0 {
            candidates.formUnion(checker.affected(.deep(depth: depth), in: table))
        }
        let modified = watch == .deep(depth: 0) ? Set(tableChanges.modifications.keys) : checker.affected(watch, in: table)
        guard !candidates.isEmpty || !modified.isEmpty else { return (state, nil) }

        let ascending = query.sortAscending
        var ordered = state.ordered
        // Old and new entries of every candidate.
        var before: [ObjectKey: OrderedMatch] = [:]
        var after: [ObjectKey: OrderedMatch] = [:]
        for key in candidates {
            if old.table(table)?.contains(key) == true {
                let entry = OrderedMatch(key: key, sortValues: query.sortValues(of: key, in: old), ascending: ascending)
                if state.ordered.containsMatch(entry) { before[key] = entry }
            }
            if query.matches(key, in: new) {
                after[key] = OrderedMatch(key: key, sortValues: query.sortValues(of: key, in: new), ascending: ascending)
            }
        }
        for entry in before.values { ordered.removeMatch(entry) }
        for entry in after.values { ordered.insertMatch(entry) }

        let change = Self.changeSet(before: before, after: after, old: state.ordered, new: ordered,
                                    modifiedKeys: modified) { key in
            // A modification of an object that is not a candidate (changed only through links
            // the query does not read) leaves it in place.
            guard modified.contains(key) else { return nil }
            if candidates.contains(key) { return .candidate }
            let entry = OrderedMatch(key: key, sortValues: query.sortValues(of: key, in: old), ascending: ascending)
            return state.ordered.indexOfMatch(entry).map(ModifiedObject.inPlace)
        }
        let next = Matches(query: query, ordered: ordered)
        return (next, change.isEmpty ? nil : change)
    }

    /// Deletions, insertions and modifications from the candidates' old and new entries.
    ///
    /// Candidates present in both versions keep their place unless their position among the
    /// untouched objects changed (or, among candidates sharing a gap between untouched objects,
    /// they fall outside a longest run in unchanged order): those are reported as moves.
    static func changeSet(
        before: [ObjectKey: OrderedMatch], after: [ObjectKey: OrderedMatch],
        old: SortedTree<OrderedMatch, Void>, new: SortedTree<OrderedMatch, Void>,
        modifiedKeys: Set<ObjectKey>, modification: (ObjectKey) -> ModifiedObject?
    ) -> CollectionChangeSet {
        var deletions: [Int] = []
        var insertions: [Int] = []
        var modifications: [Int] = []
        // Old ranks of candidates, and how many candidates precede each in each order.
        let oldRanks = before.mapValues { old.rankOfMatch($0) }
        let newRanks = after.mapValues { new.rankOfMatch($0) }
        let oldSorted = oldRanks.sorted { $0.value < $1.value }
        let newSorted = newRanks.sorted { $0.value < $1.value }
        var oldGap: [ObjectKey: Int] = [:]
        for (position, element) in oldSorted.enumerated() { oldGap[element.key] = element.value - position }
        var newGap: [ObjectKey: Int] = [:]
        var newOrder: [ObjectKey: Int] = [:]
        for (position, element) in newSorted.enumerated() {
            newGap[element.key] = element.value - position
            newOrder[element.key] = position
        }
        // Survivors grouped by gap; within a gap, keep the longest run in unchanged order.
        var groups: [Int: [(key: ObjectKey, oldPosition: Int, newPosition: Int)]] = [:]
        for (position, element) in oldSorted.enumerated() {
            let key = element.key
            guard let gap = newGap[key], gap == oldGap[key] else { continue }
            groups[gap, default: []].append((key, position, newOrder[key]!))
        }
        var stays = Set<ObjectKey>()
        for members in groups.values {
            let byNew = members.sorted { $0.newPosition < $1.newPosition }
            for index in CollectionChangeSet.longestIncreasingSubsequence(byNew.map(\.oldPosition)) {
                stays.insert(byNew[index].key)
            }
        }
        for (key, rank) in oldRanks where !stays.contains(key) { deletions.append(rank) }
        for (key, rank) in newRanks where !stays.contains(key) { insertions.append(rank) }
        for key in modifiedKeys {
            switch modification(key) {
            case .candidate?:
                if stays.contains(key), let rank = oldRanks[key] { modifications.append(rank) }
            case .inPlace(let rank)?:
                modifications.append(rank)
            case nil:
                break
            }
        }
        return CollectionChangeSet(deletions: deletions, insertions: insertions, modifications: modifications)
    }

    /// The full comparison used after a schema change or when changesets were not kept.
    private func rebuild(_ state: Matches?, old: Snapshot, new: Snapshot, changes: CombinedChanges) -> (Matches?, CollectionChangeSet?) {
        let next = initialState(at: new)
        let oldKeys = state?.keys ?? []
        let newKeys = next?.keys ?? []
        let table = next?.query.table ?? state?.query.table
        let change = CollectionChangeSet.diff(old: oldKeys, new: newKeys) { key in
            guard let table else { return false }
            return old.table(table)?.row(key) != new.table(table)?.row(key)
        }
        return (next, change.isEmpty ? nil : change)
    }
}

/// How a modified object appears in a change set.
enum ModifiedObject {
    /// It was re-evaluated: a modification only if it stayed in place.
    case candidate
    /// It was not re-evaluated and sits at this old index.
    case inPlace(Int)
}
