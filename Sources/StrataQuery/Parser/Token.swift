import StrataEngine

/// One token of a Realm Query Language query.
struct Token: Sendable {
    /// What the token is.
    var kind: TokenKind
    /// The offset of its first Unicode scalar in the query.
    var start: Int
    /// The offset just past its last Unicode scalar.
    var end: Int
    /// For a `.word`, the word lowercased (keywords are case-insensitive); otherwise empty.
    var keyword: String

    init(_ kind: TokenKind, start: Int, end: Int) {
        self.kind = kind
        self.start = start
        self.end = end
        if case .word(let word) = kind { keyword = word.lowercased() } else { keyword = "" }
    }

    /// Whether this is the word `keyword` (given lowercased), ignoring case.
    func isWord(_ keyword: String) -> Bool { self.keyword == keyword }
}

/// The kinds of tokens. Keywords are `.word`s: whether `and` is the operator or a property is
/// decided by the parser from where it stands.
enum TokenKind: Sendable, Equatable {
    /// A name: a property, a keyword, `true`, `nil`, …
    case word(String)
    /// `$x`: a subquery variable (the text includes the `$`).
    case variable(String)
    /// `$0`: an argument index.
    case argument(Int)
    /// `@count`, `@sum`, …: the name after `@`, lowercased.
    case attribute(String)
    /// A literal value (number, string, timestamp, ObjectId, UUID, binary).
    case literal(Value)
    /// `(` `)` `{` `}` `[` `]` `,` `.`
    case symbol(Character)
    /// `==` `=` `!=` `<>` `<` `<=` `=<` `>` `>=` `=>`
    case comparison(ComparisonOperator)
    /// `&&`
    case and
    /// `||`
    case or
    /// `!`
    case not
    /// Past the last token.
    case end
}
