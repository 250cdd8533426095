import StrataEngine

/// Splits a query into tokens. Every step consumes at least one scalar, so lexing is linear in
/// the length of the query; every malformed token is a thrown ``QueryError``.
struct Lexer {
    let scalars: [Unicode.Scalar]
    var index = 0
    var tokens: [Token] = []

    /// The tokens of `scalars`, ending with an `.end` token.
    static func tokenize(_ scalars: [Unicode.Scalar]) throws(QueryError) -> [Token] {
        var lexer = Lexer(scalars: scalars)
        try lexer.run()
        return lexer.tokens
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    /// The scalar at `offset`, or nil past the end.
    func peek(_ offset: Int) -> Unicode.Scalar? {
        offset >= 0 && offset < scalars.count ? scalars[offset] : nil
    }

    mutating func append(_ kind: TokenKind, from start: Int) {
        tokens.append(Token(kind, start: start, end: index))
    }

    private mutating func run() throws(QueryError) {
        while true {
            while let scalar = peek(index), scalar.properties.isWhitespace { index += 1 }
            guard let scalar = peek(index) else {
                append(.end, from: index)
                return
            }
            let start = index
            switch scalar {
            case "(", ")", "{", "}", "[", "]", ",":
                index += 1
                append(.symbol(Character(scalar)), from: start)
            case ".":
                if let next = peek(index + 1), next.isDigit, !previousTokenEndsKeyPath {
                    try scanNumber()
                } else {
                    index += 1
                    append(.symbol("."), from: start)
                }
            case "=", "!", "<", ">", "&", "|":
                try scanOperator()
            case "'", "\"":
                let text = try scanString()
                append(.literal(.string(text)), from: start)
            case "$":
                try scanDollar()
            case "%":
                try scanFormatSpecifier()
            case "@":
                index += 1
                let nameStart = index
                while let next = peek(index), next.isIdentifierContinue { index += 1 }
                guard index > nameStart else {
                    throw QueryError(position: start, problem: "expected a name such as 'count' after '@'")
                }
                append(.attribute(String(String.UnicodeScalarView(scalars[nameStart..<index])).lowercased()), from: start)
            case "-":
                guard let next = peek(index + 1),
                      next.isDigit || (next == "." && peek(index + 2)?.isDigit == true) else {
                    throw QueryError(position: start, problem: "expected a number after '-'")
                }
                try scanNumber()
            default:
                if scalar.isDigit {
                    try scanNumber()
                } else if scalar.isIdentifierStart {
                    try scanWord()
                } else {
                    throw QueryError(position: start, problem: "unexpected character '\(scalar.escaped(asASCII: false))'")
                }
            }
        }
    }

    /// Whether a `.` here continues a key path (`a.5` is a bad path, not `a` and `0.5`).
    private var previousTokenEndsKeyPath: Bool {
        switch tokens.last?.kind {
        case .word, .variable, .attribute, .symbol(")"), .symbol("]"): true
        default: false
        }
    }

    private mutating func scanOperator() throws(QueryError) {
        let start = index
        let first = scalars[index]
        let second = peek(index + 1)
        let kind: TokenKind
        var length = 2
        switch (first, second) {
        case ("=", "="): kind = .comparison(.equal)
        case ("=", "<"): kind = .comparison(.lessOrEqual)
        case ("=", ">"): kind = .comparison(.greaterOrEqual)
        case ("=", _): kind = .comparison(.equal); length = 1
        case ("!", "="): kind = .comparison(.notEqual)
        case ("!", _): kind = .not; length = 1
        case ("<", "="): kind = .comparison(.lessOrEqual)
        case ("<", ">"): kind = .comparison(.notEqual)
        case ("<", _): kind = .comparison(.less); length = 1
        case (">", "="): kind = .comparison(.greaterOrEqual)
        case (">", _): kind = .comparison(.greater); length = 1
        case ("&", "&"): kind = .and
        case ("|", "|"): kind = .or
        default:
            throw QueryError(position: start, problem: "unknown operator '\(first)'; did you mean '\(first)\(first)'?")
        }
        index += length
        append(kind, from: start)
    }

    /// `$0` (an argument) or `$name` (a subquery variable).
    private mutating func scanDollar() throws(QueryError) {
        let start = index
        index += 1
        if let next = peek(index), next.isDigit {
            var number = 0
            while let digit = peek(index), digit.isDigit {
                guard number <= 99_999_999 else {
                    throw QueryError(position: start, problem: "argument number is too large")
                }
                number = number * 10 + Int(digit.value - 48)
                index += 1
            }
            if let next = peek(index), next.isIdentifierContinue {
                throw QueryError(position: start, problem: "invalid argument; expected '$' followed by digits")
            }
            append(.argument(number), from: start)
        } else if let next = peek(index), next.isIdentifierStart {
            while let next = peek(index), next.isIdentifierContinue { index += 1 }
            append(.variable(String(String.UnicodeScalarView(scalars[start..<index]))), from: start)
        } else {
            throw QueryError(position: start, problem: "expected an argument number or a variable name after '$'")
        }
    }

    /// `%@`, `%K`, `%d`, `%i`, `%u`, `%f`, `%g`, `%e`, `%s`, with C length modifiers (`%ld`,
    /// `%lld`, `%lf`, `%hd`, `%qd`, `%zu`). Inside a quoted string `%` is an ordinary character,
    /// as in NSPredicate (`'%@'` is the two characters `%@`); outside, `%%` is refused with a
    /// message saying so, since a percent sign means nothing there.
    private mutating func scanFormatSpecifier() throws(QueryError) {
        let start = index
        index += 1
        while let modifier = peek(index), ["l", "h", "q", "z", "t", "j"].contains(modifier) { index += 1 }
        guard let conversion = peek(index) else {
            throw QueryError(position: start, problem: "expected a format specifier such as %@, %K or %d after '%'")
        }
        let hasModifier = index > start + 1
        let specifier: FormatSpecifier
        switch conversion {
        case "@" where !hasModifier: specifier = .object
        case "K" where !hasModifier: specifier = .keyPath
        case "d", "i": specifier = .integer
        case "u": specifier = .unsigned
        case "f", "F", "g", "G", "e", "E": specifier = .floating
        case "s" where !hasModifier: specifier = .string
        case "%" where !hasModifier:
            throw QueryError(position: start, problem: "'%%' (a percent sign) can only appear inside a quoted string")
        default:
            throw QueryError(position: start,
                             problem: "unsupported format specifier '\(excerpt(start..<index + 1))'; expected %@, %K, %d, %i, %u, %f, %g or %s")
        }
        index += 1
        if let next = peek(index), next.isIdentifierContinue {
            throw QueryError(position: start, problem: "unexpected \(describeScalar(at: index)) right after the format specifier '\(excerpt(start..<index))'")
        }
        append(.format(specifier), from: start)
    }

    /// A name, or a literal that starts like one: `T12:0`, `oid(…)`, `uuid(…)`, `B64"…"`.
    private mutating func scanWord() throws(QueryError) {
        let start = index
        if scalars[index] == "T", try scanSecondsTimestamp() { return }
        while let next = peek(index), next.isIdentifierContinue { index += 1 }
        let word = String(String.UnicodeScalarView(scalars[start..<index]))
        let next = peek(index)
        switch word.lowercased() {
        case "oid" where next == "(":
            let payload = try scanParenthesizedPayload(after: word)
            append(.literal(.objectId(try Self.objectId(payload.text, at: payload.start))), from: start)
        case "uuid" where next == "(":
            let payload = try scanParenthesizedPayload(after: word)
            append(.literal(.uuid(try Self.uuid(payload.text, at: payload.start))), from: start)
        case "b64" where next == "'" || next == "\"":
            let textStart = index
            let text = try scanString()
            guard let bytes = Self.base64Decoded(text) else {
                throw QueryError(position: textStart, problem: "invalid base64 data after '\(word)'")
            }
            append(.literal(.binary(bytes)), from: start)
        default:
            append(.word(word), from: start)
        }
    }

    /// The text between `(` and `)` right after `oid` or `uuid` (letters, digits and `-`).
    private mutating func scanParenthesizedPayload(after word: String) throws(QueryError) -> (text: String, start: Int) {
        index += 1
        let payloadStart = index
        while let next = peek(index), next.isIdentifierContinue || next == "-" { index += 1 }
        let text = String(String.UnicodeScalarView(scalars[payloadStart..<index]))
        guard peek(index) == ")" else {
            throw QueryError(position: index, problem: "expected ')' to end '\(word)(' but found \(describeScalar(at: index))")
        }
        index += 1
        return (text, payloadStart)
    }

    /// How an error names the scalar at `offset`.
    func describeScalar(at offset: Int) -> String {
        guard let scalar = peek(offset) else { return "the end of the query" }
        return "'\(scalar.escaped(asASCII: false))'"
    }
}

extension Unicode.Scalar {
    /// `0`…`9`.
    var isDigit: Bool { ("0"..."9").contains(self) }

    /// `0`…`9`, `a`…`f`, `A`…`F`.
    var hexValue: UInt8? {
        switch self {
        case "0"..."9": UInt8(value - 48)
        case "a"..."f": UInt8(value - 87)
        case "A"..."F": UInt8(value - 55)
        default: nil
        }
    }

    /// A letter or `_` (ASCII), or a non-ASCII letter.
    var isIdentifierStart: Bool {
        switch self {
        case "a"..."z", "A"..."Z", "_": true
        case "\0"..."\u{7F}": false
        default: properties.isAlphabetic
        }
    }

    /// An identifier start, a digit, or a non-ASCII digit or combining mark.
    var isIdentifierContinue: Bool {
        if isIdentifierStart || isDigit { return true }
        guard value > 0x7F else { return false }
        switch properties.generalCategory {
        case .decimalNumber, .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation: return true
        default: return false
        }
    }
}
