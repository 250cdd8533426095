import StrataEngine

extension CompiledQuery {
    /// How far from the root object the query's result depends on other objects: the largest
    /// number of links any filter, sort or distinct key path follows (0 when it reads only the
    /// root object's own properties), or nil when a path goes through backlinks (`@links`), whose
    /// dependencies cannot be found by following links backwards.
    ///
    /// Notifiers use it to find which objects may have entered or left the result after a
    /// commit: those changed themselves, or linking (within this many hops) to an object that did.
    package var linkDepth: Int? {
        var depth = predicate.linkDepth
        for path in sort.map(\.path) + distinct {
            depth = Self.combine(depth, path.linkCount)
        }
        return depth
    }

    static func combine(_ a: Int?, _ b: Int?) -> Int? {
        guard let a, let b else { return nil }
        return max(a, b)
    }

    /// Whether the result is ordered by a sort descriptor (otherwise it is in object-key order,
    /// or the order of the base collection).
    package var isSorted: Bool { !sort.isEmpty }

    /// Whether `DISTINCT` or `LIMIT` applies: membership then depends on other objects of the
    /// result, so it cannot be decided one object at a time.
    package var dependsOnWholeResult: Bool { !distinct.isEmpty || limit != nil }

    /// The values the object `key` sorts by, in sort-descriptor order, at `snapshot`.
    package func sortValues(of key: ObjectKey, in snapshot: Snapshot) -> [Value] {
        guard !sort.isEmpty else { return [] }
        let evaluator = PredicateEvaluator(snapshot: snapshot, root: table)
        let tableData = snapshot.table(table)
        return sort.map { sortKey in
            if let column = sortKey.path.rootColumn, let value = tableData?.value(of: key, column: column) { return value }
            return evaluator.value(of: sortKey.path, key: key)
        }
    }

    /// The ascending flags of the sort descriptors, in order.
    package var sortAscending: [Bool] { sort.map(\.ascending) }
}

extension CompiledPath {
    /// The number of links the path follows, or nil when it crosses backlinks.
    var linkCount: Int? {
        var links = 0
        for step in steps {
            switch step {
            case .backlinks: return nil
            case .column(_, _, _, let isLink, _, _) where isLink: links += 1
            default: break
            }
        }
        return links
    }
}

extension CompiledPredicate {
    /// The largest number of links any key path of the predicate follows from the root object
    /// (a subquery's body counts from its collection's objects), nil when one crosses backlinks.
    var linkDepth: Int? {
        switch self {
        case .constant: return 0
        case .and(let parts), .or(let parts):
            return parts.reduce(0 as Int?) { CompiledQuery.combine($0, $1.linkDepth) }
        case .not(let inner): return inner.linkDepth
        case .compare(let left, _, let right, _, _, _): return CompiledQuery.combine(left.linkDepth, right.linkDepth)
        case .between(let operand, _, _, _), .inList(let operand, _, _): return operand.linkDepth
        case .geoWithin(let path, _): return path.linkCount
        }
    }
}

extension CompiledOperand {
    var linkDepth: Int? {
        switch self {
        case .path(let path): return path.linkCount
        case .value: return 0
        case .subqueryCount(let collection, _, let predicate):
            guard let outer = collection.linkCount, let inner = predicate.linkDepth else { return nil }
            return outer + inner
        }
    }
}
