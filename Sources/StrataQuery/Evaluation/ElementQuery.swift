import StrataEngine

/// A query over the elements of a collection of primitive values (`List<Int>`,
/// `MutableSet<String>`, the values of `Map<String, Double>`), where key paths start at the
/// element, named `self`: `self > 5`, `self BEGINSWITH[c] 'a'`, `self.@count > 3`,
/// `SORT(self DESC)`.
///
/// The filter, sort, distinct and limit of the query all apply, in that order, as for objects.
package struct ElementQuery: Sendable {
    let predicate: CompiledPredicate
    let sort: [(path: CompiledPath, ascending: Bool)]
    let distinct: [CompiledPath]
    let limit: Int?

    /// Compiles `query` for primitive elements.
    ///
    /// - Throws: ``QueryError`` for a key path other than `self` (and what may follow it), or a
    ///   `SUBQUERY`, which needs objects.
    package init(_ query: ParsedQuery, snapshot: Snapshot) throws(QueryError) {
        var compiler = PathCompiler(snapshot: snapshot)
        compiler.startsAtElement = true
        let root = TableKey(.max)
        predicate = try compiler.compile(query.predicate, table: root)
        var sort: [(CompiledPath, Bool)] = []
        for key in query.sort {
            let path = try compiler.compile(key.keyPath, root: root)
            guard !path.isToMany else {
                throw QueryError(position: 0, message: "Cannot sort on key path '\(key.keyPath)': it has several values")
            }
            sort.append((path, key.ascending))
        }
        self.sort = sort
        var distinct: [CompiledPath] = []
        for keyPath in query.distinct { distinct.append(try compiler.compile(keyPath, root: root)) }
        self.distinct = distinct
        if let limit = query.limit, limit < 0 { throw QueryError(position: 0, message: "LIMIT must not be negative") }
        limit = query.limit
    }

    /// Whether `element` passes the filter.
    ///
    /// - Complexity: O(size of the predicate).
    package func matches(_ element: Value, in snapshot: Snapshot) -> Bool {
        PredicateEvaluator(snapshot: snapshot, root: TableKey(.max), element: element)
            .matches(predicate, key: ObjectKey(-1), row: nil)
    }

    /// The elements of `values` that match, in their order, then sorted (stably), made distinct
    /// (first occurrence kept) and limited.
    ///
    /// - Complexity: O(n) evaluations, plus O(m log m) to sort m matches.
    package func run(on values: [Value], in snapshot: Snapshot) -> [Value] {
        var matched = values.filter { matches($0, in: snapshot) }
        if !sort.isEmpty {
            let keys = matched.map { element in sort.map { sortValue($0.path, of: element, in: snapshot) } }
            let ascending = sort.map(\.ascending)
            let order = matched.indices.sorted { a, b in
                for index in ascending.indices {
                    let comparison = keys[a][index].compare(keys[b][index])
                    if comparison != 0 { return ascending[index] ? comparison < 0 : comparison > 0 }
                }
                return a < b
            }
            matched = order.map { matched[$0] }
        }
        if !distinct.isEmpty {
            var seen = Set<[Value]>()
            matched = matched.filter { element in
                seen.insert(distinct.map { sortValue($0, of: element, in: snapshot) }).inserted
            }
        }
        if let limit, matched.count > limit { matched.removeLast(matched.count - limit) }
        return matched
    }

    private func sortValue(_ path: CompiledPath, of element: Value, in snapshot: Snapshot) -> Value {
        PredicateEvaluator(snapshot: snapshot, root: TableKey(.max), element: element).value(of: path, key: ObjectKey(-1))
    }
}
