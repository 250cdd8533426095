import StrataEngine

/// `SORT(…)`, `DISTINCT(…)` and `LIMIT(n)` after the predicate.
extension Parser {
    /// Whether the current token starts a suffix: `SORT(`, `DISTINCT(` or `LIMIT(`.
    var isAtSuffix: Bool {
        switch current.keyword {
        case "sort", "distinct", "limit": peek(1).kind == .symbol("(")
        default: false
        }
    }

    /// Any number of suffixes, in any order, each at most once.
    mutating func parseSuffixes(into query: inout ParsedQuery) throws(QueryError) {
        var seen: Set<String> = []
        while isAtSuffix {
            let keyword = advance()
            guard seen.insert(keyword.keyword).inserted else {
                throw QueryError(position: keyword.start,
                                 problem: "duplicate \(keyword.keyword.uppercased()): SORT, DISTINCT and LIMIT may each appear once")
            }
            advance()
            switch keyword.keyword {
            case "sort":
                while true {
                    let keyPath = try parseKeyPath()
                    switch current.keyword {
                    case "asc", "ascending": query.sort.append(SortKey(keyPath, ascending: true))
                    case "desc", "descending": query.sort.append(SortKey(keyPath, ascending: false))
                    default: throw expected("ASC or DESC")
                    }
                    advance()
                    guard isAt(",") else { break }
                    advance()
                }
                try expect(")", "',' or ')' to end SORT")
            case "distinct":
                while true {
                    query.distinct.append(try parseKeyPath())
                    guard isAt(",") else { break }
                    advance()
                }
                try expect(")", "',' or ')' to end DISTINCT")
            default:
                var bound = current.kind
                if case .argument(let number) = bound { bound = .literal(try valueArgument(number)) }
                guard case .literal(.int(let limit)) = bound, limit >= 0 else {
                    if case .literal(.int) = bound {
                        throw QueryError(position: current.start, problem: "LIMIT must not be negative but found \(describe(current))")
                    }
                    throw expected("a non-negative integer")
                }
                query.limit = Int(limit)
                advance()
                try expect(")", "')' to end LIMIT")
            }
        }
    }
}
