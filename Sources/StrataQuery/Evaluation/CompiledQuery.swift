import StrataEngine

/// A query compiled for one table of a snapshot's schema: filter, sort, distinct and limit.
///
/// Compile once per schema (column indices are fixed) and run it on any snapshot with that
/// schema. Equality on a primary key or indexed property, alone or inside an `AND`, reads the
/// index instead of scanning.
package struct CompiledQuery: Sendable {
    /// The table the query runs over.
    package let table: TableKey
    let predicate: CompiledPredicate
    let sort: [(path: CompiledPath, ascending: Bool)]
    let distinct: [CompiledPath]
    let limit: Int?
    /// An indexed column and the values to look up in it, when the predicate allows.
    let indexLookup: (column: Int, values: [Value])?
    /// The predicate as a flat list of column tests, when it is that simple (the scan fast path).
    let scanFilter: ScanFilter?

    /// Compiles `query` against the schema of `snapshot`.
    ///
    /// - Throws: ``QueryError`` for a property that does not exist ("Invalid property name:
    ///   property 'x' not found in object of type 'Y'"), a sort or distinct through a collection,
    ///   or a malformed `IN` / `BETWEEN` / `SUBQUERY`.
    package init(_ query: ParsedQuery, snapshot: Snapshot, table: TableKey) throws(QueryError) {
        guard let schema = snapshot.table(table)?.schema else {
            throw QueryError(position: 0, message: "The table does not exist")
        }
        self.table = table
        let compiler = PathCompiler(snapshot: snapshot)
        predicate = try compiler.compile(query.predicate, table: table)
        var sort: [(CompiledPath, Bool)] = []
        for key in query.sort {
            let path = try compiler.compile(key.keyPath, root: table)
            guard !path.isToMany else {
                throw QueryError(position: 0, message: "Cannot sort on key path '\(key.keyPath)': sorting is only "
                                 + "supported on to-one key paths")
            }
            sort.append((path, key.ascending))
        }
        self.sort = sort
        var distinct: [CompiledPath] = []
        for keyPath in query.distinct {
            let path = try compiler.compile(keyPath, root: table)
            guard !path.isToMany, path.steps.allSatisfy({ if case .column = $0 { true } else { false } }) else {
                throw QueryError(position: 0, message: "Cannot distinct on key path '\(keyPath)': only to-one "
                                 + "properties can be used")
            }
            distinct.append(path)
        }
        self.distinct = distinct
        if let limit = query.limit, limit < 0 { throw QueryError(position: 0, message: "LIMIT must not be negative") }
        limit = query.limit
        indexLookup = Self.indexLookup(in: predicate, schema: schema)
        scanFilter = ScanFilter(predicate)
    }

    /// Whether the object `key` matches the filter.
    ///
    /// - Complexity: O(path length × log n) per key path.
    package func matches(_ key: ObjectKey, in snapshot: Snapshot) -> Bool {
        guard let row = snapshot.table(table)?.row(key) else { return false }
        return accepts(key, row, PredicateEvaluator(snapshot: snapshot, root: table))
    }

    /// Whether the object `key`, whose row is `row`, passes the filter.
    @inline(__always)
    private func accepts(_ key: ObjectKey, _ row: Row, _ evaluator: PredicateEvaluator) -> Bool {
        if let scanFilter { return scanFilter.matches(row) }
        return evaluator.matches(predicate, key: key, row: row)
    }

    /// The matching objects of `base` (in its order) or of the whole table (in key order), then
    /// sorted, made distinct and limited.
    ///
    /// - Complexity: O(n) evaluations for a scan, O(log n + k) with an index; plus O(m log m) to
    ///   sort m matches.
    package func run(on snapshot: Snapshot, base: [ObjectKey]? = nil) -> [ObjectKey] {
        matches(on: snapshot, base: base, keepingRows: false).keys
    }

    /// What ``matches(on:base:keepingRows:)`` found.
    package struct Matches {
        /// The matching objects, in the query's order.
        package var keys: [ObjectKey]
        /// Their rows at the snapshot the query ran on, parallel to `keys`, when the caller asked
        /// for them (and there are at most ``keptRowsLimit`` matches).
        package var rows: [Row]?
    }

    /// The most matches whose rows ``matches(on:base:keepingRows:)`` keeps: rows kept with a
    /// result stay in memory as long as it does, outside the store's node cache, so only small
    /// results keep them (65,536 rows of a few short columns take a few megabytes).
    package static let keptRowsLimit = 1 << 16

    /// ``run(on:base:)``, also returning the rows the query read for its matches when
    /// `keepingRows` (so that reading the matched objects next does not look each row up again).
    /// With `packingRows`, a scan packs the leaves of rows it reads that are not packed yet (see
    /// ``Table/forEachLeaf(packingRows:_:)``): only for a published snapshot.
    ///
    /// - Complexity: as ``run(on:base:)``.
    package func matches(
        on snapshot: Snapshot, base: [ObjectKey]? = nil, keepingRows: Bool, packingRows: Bool = false
    ) -> Matches {
        guard let tableData = snapshot.table(table) else { return Matches(keys: [], rows: nil) }
        let evaluator = PredicateEvaluator(snapshot: snapshot, root: table)
        var matches: [ObjectKey] = []
        var rows: [Row]? = keepingRows ? [] : nil
        var gathered = base == nil && indexLookup == nil ? sortValueGatherer : nil
        func keep(_ row: Row) {
            guard rows != nil else { return }
            if matches.count > Self.keptRowsLimit { rows = nil } else { rows!.append(row) }
        }
        if let base {
            for key in base {
                guard let row = tableData.row(key), accepts(key, row, evaluator) else { continue }
                matches.append(key)
                keep(row)
            }
        } else if let lookup = indexLookup {
            var candidates = Set<ObjectKey>()
            for value in lookup.values { candidates.formUnion(tableData.objects(where: lookup.column, equals: value)) }
            for key in candidates.sorted() {
                let row = tableData.row(key)
                guard evaluator.matches(predicate, key: key, row: row) else { continue }
                matches.append(key)
                if let row { keep(row) } else { rows = nil }
            }
        } else if case .constant(true) = predicate, gathered == nil, rows == nil {
            matches = tableData.objectKeys
        } else if let scanFilter {
            tableData.forEachLeaf(packingRows: packingRows) { keys, rows in
                scanFilter.forEachMatch(in: rows) { index in
                    matches.append(keys[index])
                    gathered?.append(rows.baseAddress.unsafelyUnwrapped + index)
                    keep(rows[index])
                }
            }
        } else {
            tableData.forEachRow { key, row in
                guard evaluator.matches(predicate, key: key, row: row.pointee) else { return }
                matches.append(key)
                gathered?.append(row)
                keep(row.pointee)
            }
        }
        return order(Matches(keys: matches, rows: rows), gathered: gathered, snapshot: snapshot, evaluator: evaluator)
    }

    /// The number of matches (without sorting when nothing but the count is needed).
    package func count(on snapshot: Snapshot, base: [ObjectKey]? = nil) -> Int {
        guard distinct.isEmpty, limit == nil, base == nil, indexLookup == nil,
              let tableData = snapshot.table(table) else { return run(on: snapshot, base: base).count }
        if case .constant(true) = predicate { return tableData.count }
        let evaluator = PredicateEvaluator(snapshot: snapshot, root: table)
        var count = 0
        if let scanFilter {
            tableData.forEachLeaf { _, rows in scanFilter.forEachMatch(in: rows) { _ in count += 1 } }
        } else {
            tableData.forEachObject { key, row in
                if evaluator.matches(predicate, key: key, row: row) { count += 1 }
            }
        }
        return count
    }

    /// `matches` sorted, made distinct and limited (their rows, if any, kept alongside).
    private func order(_ matches: Matches, gathered: SortValues?, snapshot: Snapshot,
                       evaluator: PredicateEvaluator) -> Matches {
        let keys = matches.keys
        // Positions into `keys`, nil while they are still in order.
        var positions: [Int]?
        if !sort.isEmpty { positions = sortedPositions(keys, gathered: gathered, snapshot: snapshot, evaluator: evaluator) }
        if !distinct.isEmpty {
            // As in Realm, an object whose distinct key path crosses a nil link is dropped.
            let links = distinct.compactMap(\.linksOnTheWay)
            var seen = Set<[Value]>()
            positions = (positions ?? Array(keys.indices)).filter { position in
                !links.contains { evaluator.value(of: $0, key: keys[position]) == .null }
                    && seen.insert(distinct.map { evaluator.value(of: $0, key: keys[position]) }).inserted
            }
        }
        if let limit, (positions?.count ?? keys.count) > limit {
            positions = Array((positions ?? Array(keys.indices)).prefix(limit))
        }
        guard let positions else { return matches }
        return Matches(keys: positions.map { keys[$0] }, rows: matches.rows.map { rows in positions.map { rows[$0] } })
    }

    /// The values `path` (a property of the root table) takes over `keys`, for aggregates.
    package func values(ofProperty column: Int, keys: [ObjectKey], in snapshot: Snapshot) -> [Value] {
        guard let tableData = snapshot.table(table) else { return [] }
        return keys.compactMap { tableData.value(of: $0, column: column) }
    }

    private static func indexLookup(in predicate: CompiledPredicate, schema: TableSchema) -> (column: Int, values: [Value])? {
        func indexed(_ column: Int) -> Bool {
            column == schema.primaryKeyIndex || schema.columns[column].isIndexed
        }
        /// The index holds values exactly as stored: only a value of the column's own kind (or
        /// null) can be looked up; `age == 3.0` on an int column must scan.
        func exact(_ value: Value, _ column: Int) -> Bool {
            switch (schema.columns[column].type, value) {
            case (_, .null), (.int, .int), (.bool, .bool), (.string, .string), (.objectId, .objectId),
                 (.uuid, .uuid), (.timestamp, .timestamp): return true
            default: return false
            }
        }
        switch predicate {
        case .compare(.path(let path), .equal, .value(let value), let options, _, false):
            guard options.isEmpty, let column = path.rootColumn, indexed(column), exact(value, column) else { return nil }
            return (column, [value])
        case .inList(.path(let path), let values, _):
            guard let column = path.rootColumn, indexed(column), values.allSatisfy({ exact($0, column) }) else { return nil }
            return (column, values)
        case .and(let parts):
            return parts.lazy.compactMap { indexLookup(in: $0, schema: schema) }.first
        default:
            return nil
        }
    }
}

extension CompiledPath {
    /// For a path through to-one links (`owner.name`), the path to the last link on the way
    /// (`owner`), which is null when any link on the way is; nil for a path of one step.
    var linksOnTheWay: CompiledPath? {
        guard variable == nil, steps.count > 1 else { return nil }
        return CompiledPath(variable: nil, steps: Array(steps.dropLast()), isToMany: false, targetTable: nil)
    }
}

extension PredicateEvaluator {
    /// The single value a to-one path has for an object (for sorting and distinct); null when a
    /// link on the way is null.
    func value(of path: CompiledPath, key: ObjectKey) -> Value {
        pathValues(path, key: key).first ?? .null
    }
}
