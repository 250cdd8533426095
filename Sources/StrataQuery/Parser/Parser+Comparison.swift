import StrataEngine

/// Comparisons and their operands.
extension Parser {
    /// Words that cannot start a key path: they are operators wherever a key path could stand.
    static let reservedWords: Set<String> = [
        "and", "or", "not", "in", "between", "beginswith", "endswith", "contains", "like", "geowithin",
        "truepredicate", "falsepredicate",
    ]

    /// operand operator operand, `operand IN …`, `operand BETWEEN {…}`, `keyPath GEOWITHIN shape`.
    mutating func parseComparison(quantifier: Quantifier?, quantifierToken: Token?) throws(QueryError) -> QueryPredicate {
        let leftIndex = index
        let leftStart = current.start
        let left = try parseOperand(expecting: quantifierToken == nil ? "a predicate" : "a key path")
        let leftText = index - 1 == leftIndex ? describe(tokens[leftIndex]) : "'\(sourceText(leftStart, tokens[index - 1].end))'"
        if let quantifierToken {
            guard case .keyPath = left else {
                throw QueryError(position: leftStart,
                                 problem: "expected a key path after \(describe(quantifierToken)) but found \(leftText)")
            }
        }
        let operatorToken = current
        let op: ComparisonOperator
        switch operatorToken.kind {
        case .comparison(let comparison):
            op = comparison
        case .word:
            switch operatorToken.keyword {
            case "beginswith": op = .beginsWith
            case "endswith": op = .endsWith
            case "contains": op = .contains
            case "like": op = .like
            case "in":
                advance()
                try rejectStringOptions(after: operatorToken)
                return .inList(left, try parseInRight(), quantifier: quantifier ?? .any)
            case "between":
                advance()
                try rejectStringOptions(after: operatorToken)
                let (lower, upper) = try parseBetweenBounds()
                return .between(left, lower: lower, upper: upper, quantifier: quantifier ?? .any)
            case "geowithin":
                guard case .keyPath(let keyPath) = left, quantifierToken == nil else {
                    throw QueryError(position: operatorToken.start, problem: "GEOWITHIN needs a plain key path on its left")
                }
                advance()
                return .geoWithin(keyPath, try parseGeoShape())
            default:
                throw expected("a comparison operator", after: leftText)
            }
        default:
            throw expected("a comparison operator", after: leftText)
        }
        advance()
        let options = try parseStringOptions(after: operatorToken, op: op)
        let right = try parseOperand(expecting: "a value or key path")
        return .comparison(Comparison(left, op, right, options: options, quantifier: quantifier ?? .any))
    }

    /// `[c]`, `[d]`, `[cd]` after a string-capable operator.
    private mutating func parseStringOptions(after operatorToken: Token, op: ComparisonOperator) throws(QueryError) -> StringOptions {
        guard isAt("[") else { return [] }
        switch op {
        case .equal, .notEqual, .beginsWith, .endsWith, .contains, .like: break
        case .less, .lessOrEqual, .greater, .greaterOrEqual: try rejectStringOptions(after: operatorToken)
        }
        advance()
        var options: StringOptions = []
        let letters = current.keyword
        for letter in letters {
            let option: StringOptions = letter == "c" ? .caseInsensitive : letter == "d" ? .diacriticInsensitive : []
            guard !option.isEmpty, !options.contains(option) else { options = []; break }
            options.insert(option)
        }
        guard !options.isEmpty else { throw expected("string options c, d or cd") }
        advance()
        try expect("]", "']' to end the string options")
        return options
    }

    /// Throws if string options follow an operator that takes none.
    private func rejectStringOptions(after operatorToken: Token) throws(QueryError) {
        guard isAt("[") else { return }
        throw QueryError(position: current.start,
                         problem: "string options are only allowed after ==, !=, BEGINSWITH, ENDSWITH, CONTAINS and LIKE, not after \(describe(operatorToken))")
    }

    /// A value, `$n`, `{list}`, key path or `SUBQUERY(…).@count`; `what` names it in errors.
    mutating func parseOperand(expecting what: String) throws(QueryError) -> Operand {
        let token = current
        switch token.kind {
        case .literal(let value):
            advance()
            return .value(value)
        case .argument(let number):
            let value = try valueArgument(number)
            advance()
            return .value(value)
        case .symbol("{"):
            return .list(try parseListLiteral())
        case .variable, .attribute("links"):
            return .keyPath(try parseKeyPath())
        case .word:
            switch token.keyword {
            case "true", "false", "yes", "no", "nil", "null":
                return .value(try parseListElement())
            case "subquery" where peek(1).kind == .symbol("("):
                return try parseSubquery()
            case let word where Self.reservedWords.contains(word):
                throw expected(what)
            default:
                return .keyPath(try parseKeyPath())
            }
        default:
            throw expected(what)
        }
    }

    /// A literal, `true`/`false` (or NSPredicate's `YES`/`NO`), `nil`/`NULL` or a `$n` value: an
    /// element of a list literal.
    mutating func parseListElement() throws(QueryError) -> Value {
        let token = current
        let value: Value
        switch token.kind {
        case .literal(let literal): value = literal
        case .argument(let number): value = try valueArgument(number)
        case .word where token.keyword == "true" || token.keyword == "yes": value = .bool(true)
        case .word where token.keyword == "false" || token.keyword == "no": value = .bool(false)
        case .word where token.keyword == "nil" || token.keyword == "null": value = .null
        default: throw expected("a value")
        }
        advance()
        return value
    }

    /// `{a, b, …}` (possibly empty) of values.
    mutating func parseListLiteral() throws(QueryError) -> [Operand] {
        let open = advance()
        var elements: [Operand] = []
        if isAt("}") {
            advance()
            return elements
        }
        while true {
            elements.append(.value(try parseListElement()))
            if isAt(",") {
                advance()
            } else if isAt("}") {
                advance()
                return elements
            } else {
                throw expected("',' or '}' in the list starting at position \(open.start)")
            }
        }
    }

    /// After IN: `{list}`, a list argument (becomes `.list`), or any operand (`'a' IN tags`).
    private mutating func parseInRight() throws(QueryError) -> Operand {
        if case .argument(let number) = current.kind {
            let value = try valueArgument(number)
            advance()
            switch value {
            case .list(let elements), .set(let elements): return .list(elements.map { .value($0) })
            default: return .value(value)
            }
        }
        return try parseOperand(expecting: "a list such as {1, 2}, a $n argument or a key path")
    }

    /// After BETWEEN: `{lower, upper}` or a `$n` list argument of two values.
    private mutating func parseBetweenBounds() throws(QueryError) -> (Operand, Operand) {
        let token = current
        let bounds: [Operand]
        switch token.kind {
        case .symbol("{"):
            bounds = try parseListLiteral()
        case .argument(let number):
            guard case .list(let values) = try valueArgument(number) else {
                throw QueryError(position: token.start, problem: "argument $\(number) after BETWEEN must be a list of two values")
            }
            advance()
            bounds = values.map { .value($0) }
        default:
            throw expected("'{lower, upper}'")
        }
        guard bounds.count == 2 else {
            throw QueryError(position: token.start,
                             problem: "BETWEEN needs exactly two values {lower, upper} but found \(bounds.count)")
        }
        return (bounds[0], bounds[1])
    }

    /// `SUBQUERY(collection, $x, predicate).@count` (or `.@size`).
    private mutating func parseSubquery() throws(QueryError) -> Operand {
        let keyword = advance()
        try enterNesting(at: keyword)
        advance()
        let collection = try parseKeyPath(expecting: "a collection key path")
        try expect(",")
        guard case .variable(let variable) = current.kind else {
            throw expected("a variable such as '$x'")
        }
        advance()
        try expect(",")
        variables.append(variable)
        let predicate = try parseOr()
        variables.removeLast()
        try expect(")", "')' to close the SUBQUERY at position \(keyword.start)")
        guard isAt("."), case .attribute(let name) = peek(1).kind, name == "count" || name == "size" else {
            throw expected("'.@count' or '.@size'")
        }
        advance()
        advance()
        depth -= 1
        return .subqueryCount(collection: collection, variable: variable, predicate: predicate)
    }
}
