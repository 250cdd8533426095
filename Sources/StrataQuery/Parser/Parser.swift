import StrataEngine

/// The Realm Query Language parser: query text (plus `$n` arguments) → ``ParsedQuery``.
///
/// ```swift
/// let query = try RQLParser.parse("age > $0 AND name BEGINSWITH[c] 'a' SORT(age DESC) LIMIT(10)",
///                                 arguments: [.value(.int(18))])
/// ```
///
/// Keywords are case-insensitive; `$n` arguments are substituted while parsing. Parsing never
/// traps: every problem is a ``QueryError`` with the offset of the offending token. Work is
/// linear in the length of the query and nesting (parentheses, `NOT`, `SUBQUERY`) is limited to
/// ``maximumDepth`` levels.
package enum RQLParser {
    /// How deeply parentheses, `NOT`s and `SUBQUERY`s may nest.
    package static let maximumDepth = 200

    /// Parses `text`, substituting `arguments` for `$0`, `$1`, … or, in order, for the
    /// NSPredicate-style format specifiers `%@` (any value), `%K` (a key path), `%d`/`%i`/`%ld`/
    /// `%lld` (an integer), `%u`, `%f`/`%lf`/`%g` (a number) and `%s` (a string).
    ///
    /// A query uses one style or the other. With format specifiers the number of arguments must
    /// match, and each must fit its specifier; a mismatch is a ``QueryError``, never a trap.
    /// Values are bound, never spliced into the text, so they need no quoting or escaping.
    ///
    /// ```swift
    /// let query = try RQLParser.parse("%K == %@ AND age > %d", arguments: [.value(.string("name")),
    ///                                 .value(.string("O'Brien")), .value(.int(18))])
    /// ```
    package static func parse(_ text: String, arguments: [QueryArgument] = []) throws(QueryError) -> ParsedQuery {
        let scalars = Array(text.unicodeScalars)
        let substitution = try FormatSubstitution(tokens: try Lexer.tokenize(scalars), arguments: arguments)
        var parser = Parser(tokens: substitution.tokens, scalars: scalars, arguments: substitution.arguments)
        return try parser.parseQuery()
    }
}

/// A recursive-descent parser over the tokens of one query.
struct Parser {
    let tokens: [Token]
    let scalars: [Unicode.Scalar]
    let arguments: [QueryArgument]
    /// The current token; never past the final `.end` token.
    var index = 0
    /// How many parentheses, `NOT`s and `SUBQUERY`s enclose the current token.
    var depth = 0
    /// The variables of the enclosing `SUBQUERY`s, innermost last.
    var variables: [String] = []

    init(tokens: [Token], scalars: [Unicode.Scalar], arguments: [QueryArgument]) {
        self.tokens = tokens
        self.scalars = scalars
        self.arguments = arguments
    }

    // MARK: Token cursor

    var current: Token { tokens[index] }

    /// The token `offset` after the current one (the `.end` token past the end).
    func peek(_ offset: Int) -> Token { tokens[min(index + offset, tokens.count - 1)] }

    /// Moves past the current token (not past `.end`) and returns it.
    @discardableResult
    mutating func advance() -> Token {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    /// Whether the current token is the symbol `symbol`.
    func isAt(_ symbol: Character) -> Bool { current.kind == .symbol(symbol) }

    /// Consumes the symbol `symbol` or throws "expected `what`".
    mutating func expect(_ symbol: Character, _ what: String? = nil) throws(QueryError) {
        guard isAt(symbol) else { throw expected(what ?? "'\(symbol)'") }
        advance()
    }

    // MARK: Errors

    /// The source text from `start` to `end`, shortened to 40 scalars.
    func sourceText(_ start: Int, _ end: Int) -> String {
        let upper = min(end, scalars.count, start + 40)
        guard start < upper else { return "" }
        return String(String.UnicodeScalarView(scalars[start..<upper])) + (end > upper ? "…" : "")
    }

    /// How an error names `token`.
    func describe(_ token: Token) -> String {
        switch token.kind {
        case .end: return "the end of the query"
        case .literal(.string): return sourceText(token.start, token.end) // Already quoted.
        default: return "'\(sourceText(token.start, token.end))'"
        }
    }

    /// "expected `what` after 'previous token' but found 'current token'", at the current token.
    func expected(_ what: String, after context: String? = nil) -> QueryError {
        var problem = "expected \(what)"
        if let context = context ?? (index > 0 ? describe(tokens[index - 1]) : nil) {
            problem += " after \(context)"
        }
        problem += " but found \(describe(current))"
        return QueryError(position: current.start, problem: problem)
    }

    /// Counts one more level of nesting at `token`, or throws past ``RQLParser/maximumDepth``.
    mutating func enterNesting(at token: Token) throws(QueryError) {
        guard depth < RQLParser.maximumDepth else {
            throw QueryError(position: token.start,
                             problem: "the query nests parentheses, NOT and SUBQUERY more than \(RQLParser.maximumDepth) levels deep")
        }
        depth += 1
    }

    // MARK: Arguments

    /// The argument bound to `$number` (the current token), or throws if there is none.
    func argument(_ number: Int) throws(QueryError) -> QueryArgument {
        guard number < arguments.count else {
            let given = arguments.count == 1 ? "1 argument was" : "\(arguments.count) arguments were"
            throw QueryError(position: current.start, problem: "argument $\(number) is out of range: \(given) given")
        }
        return arguments[number]
    }

    /// The value bound to `$number` (the current token); a geo shape is an error here.
    func valueArgument(_ number: Int) throws(QueryError) -> Value {
        switch try argument(number) {
        case .value(let value): return value
        case .geo:
            throw QueryError(position: current.start,
                             problem: "argument $\(number) is a geo shape, which is only allowed after GEOWITHIN")
        }
    }

    // MARK: Query and predicates

    /// predicate? suffix* end
    mutating func parseQuery() throws(QueryError) -> ParsedQuery {
        var query = ParsedQuery(predicate: .constant(true))
        if !isAtSuffix { query.predicate = try parseOr() }
        let hasSuffix = isAtSuffix
        try parseSuffixes(into: &query)
        if case .end = current.kind { return query }
        if isAt(")") {
            throw QueryError(position: current.start, problem: "unexpected ')' without a matching '('")
        }
        throw expected(hasSuffix ? "SORT, DISTINCT, LIMIT or the end of the query"
                                 : "AND, OR, SORT, DISTINCT, LIMIT or the end of the query")
    }

    /// and (OR and)*
    mutating func parseOr() throws(QueryError) -> QueryPredicate {
        var parts = [try parseAnd()]
        while current.kind == .or || current.isWord("or") {
            advance()
            parts.append(try parseAnd())
        }
        guard parts.count > 1 else { return parts[0] }
        var flat: [QueryPredicate] = []
        for part in parts {
            if case .or(let inner) = part { flat += inner } else { flat.append(part) }
        }
        return .or(flat)
    }

    /// unary (AND unary)*
    mutating func parseAnd() throws(QueryError) -> QueryPredicate {
        var parts = [try parseUnary()]
        while current.kind == .and || current.isWord("and") {
            advance()
            parts.append(try parseUnary())
        }
        guard parts.count > 1 else { return parts[0] }
        var flat: [QueryPredicate] = []
        for part in parts {
            if case .and(let inner) = part { flat += inner } else { flat.append(part) }
        }
        return .and(flat)
    }

    /// (NOT | !)* primary
    mutating func parseUnary() throws(QueryError) -> QueryPredicate {
        var negations = 0
        while current.kind == .not || current.isWord("not") {
            try enterNesting(at: current)
            advance()
            negations += 1
        }
        var predicate = try parsePrimary()
        for _ in 0..<negations { predicate = .not(predicate) }
        depth -= negations
        return predicate
    }

    /// ( predicate ) | TRUEPREDICATE | FALSEPREDICATE | [ANY|SOME|ALL|NONE] comparison
    mutating func parsePrimary() throws(QueryError) -> QueryPredicate {
        let token = current
        if isAt("(") {
            try enterNesting(at: token)
            advance()
            let predicate = try parseOr()
            guard isAt(")") else {
                throw QueryError(position: current.start,
                                 problem: "expected ')' to close the '(' at position \(token.start) but found \(describe(current))")
            }
            advance()
            depth -= 1
            return predicate
        }
        switch token.keyword {
        case "truepredicate":
            advance()
            return .constant(true)
        case "falsepredicate":
            advance()
            return .constant(false)
        case "any", "some", "all", "none":
            // `any == 1` and `any.x == 1` compare a property named "any".
            let next = peek(1)
            switch next.kind {
            case .comparison, .symbol("."), .symbol("["), .end: break
            case .word where Self.reservedWords.contains(next.keyword): break
            default:
                advance()
                let quantifier: Quantifier = token.keyword == "all" ? .all : token.keyword == "none" ? .none : .any
                return try parseComparison(quantifier: quantifier, quantifierToken: token)
            }
        default:
            break
        }
        return try parseComparison(quantifier: nil, quantifierToken: nil)
    }
}
