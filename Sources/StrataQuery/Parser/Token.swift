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

    /// A property name substituted for `%K`: a `.word` that is never a keyword, so a key path
    /// named `and` or `true` stays a key path.
    static func propertyName(_ name: String, start: Int, end: Int) -> Token {
        var token = Token(.word(name), start: start, end: end)
        token.keyword = ""
        return token
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
    /// `%@`, `%K`, `%d`, …: an NSPredicate-style format specifier; they take the arguments in
    /// order (the first specifier the first argument). Replaced before parsing (see
    /// ``FormatSubstitution``).
    case format(FormatSpecifier)
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

/// An NSPredicate-style format specifier, as Realm Swift accepts in `filter(_:_:)`.
enum FormatSpecifier: Sendable, Equatable {
    /// `%@`: any value (a scalar, an object, nil, or a list for `IN`).
    case object
    /// `%K`: a key path, substituted as a path (never as a value).
    case keyPath
    /// `%d`, `%i`, `%ld`, `%lld`, `%hd`, `%qd`, …: a signed integer.
    case integer
    /// `%u`, `%lu`, `%llu`, …: an integer that is not negative.
    case unsigned
    /// `%f`, `%lf`, `%g`, `%e`, …: a floating-point number (an integer is converted).
    case floating
    /// `%s`: a string.
    case string

    /// How the specifier is spelled in error messages.
    var spelling: String {
        switch self {
        case .object: "%@"
        case .keyPath: "%K"
        case .integer: "%d"
        case .unsigned: "%u"
        case .floating: "%f"
        case .string: "%s"
        }
    }
}
