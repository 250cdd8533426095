import StrataEngine

/// Binds NSPredicate-style format specifiers (`%@`, `%K`, `%d`, …) to the arguments, in order,
/// before parsing, as Realm Swift's `filter("name == %@", name)` does.
///
/// Values are never turned into text: a `%@` becomes an argument token that the parser reads
/// like `$n`, so a string with quotes or backslashes needs no escaping. A `%K` becomes the
/// tokens of its key path (names that are never keywords). Every mismatch (too few or too many
/// arguments, a `%d` given a string, a `%K` that is not a key path, specifiers mixed with `$n`)
/// is a ``QueryError`` at the specifier.
struct FormatSubstitution {
    /// The tokens with every `.format` replaced.
    private(set) var tokens: [Token] = []
    /// The arguments the `.argument` tokens now refer to.
    private(set) var arguments: [QueryArgument]

    /// Substitutes `arguments` into `tokens`; returns them unchanged when there is no specifier.
    init(tokens: [Token], arguments: [QueryArgument]) throws(QueryError) {
        self.arguments = arguments
        let specifiers = tokens.filter { if case .format = $0.kind { true } else { false } }
        guard let first = specifiers.first else {
            self.tokens = tokens
            return
        }
        if let dollar = tokens.first(where: { if case .argument = $0.kind { true } else { false } }) {
            throw QueryError(position: max(dollar.start, first.start),
                             problem: "a query takes either $n arguments or format specifiers such as %@, not both")
        }
        guard specifiers.count == arguments.count else {
            let given = arguments.count == 1 ? "1 argument was" : "\(arguments.count) arguments were"
            let needed = specifiers.count == 1 ? "1 format specifier" : "\(specifiers.count) format specifiers"
            let position = specifiers.count > arguments.count ? specifiers[arguments.count].start : specifiers.last!.start
            throw QueryError(position: position, problem: "the query has \(needed) but \(given) given")
        }
        var next = 0
        for token in tokens {
            guard case .format(let specifier) = token.kind else {
                self.tokens.append(token)
                continue
            }
            let number = next
            next += 1
            if specifier == .keyPath {
                self.tokens += try Self.keyPathTokens(arguments[number], number: number, at: token)
                continue
            }
            self.arguments[number] = try Self.checked(arguments[number], specifier, number: number, at: token)
            self.tokens.append(Token(.argument(number), start: token.start, end: token.end))
        }
    }

    /// The argument for a value specifier, converted as its C conversion does (`%f` of an
    /// integer is a double), or an error when it is of the wrong kind.
    private static func checked(_ argument: QueryArgument, _ specifier: FormatSpecifier, number: Int,
                                at token: Token) throws(QueryError) -> QueryArgument {
        guard specifier != .object else { return argument }
        func mismatch(_ wanted: String) -> QueryError {
            QueryError(position: token.start,
                       problem: "\(specifier.spelling) needs \(wanted) but argument \(number) is \(describe(argument))")
        }
        guard case .value(let value) = argument else { throw mismatch(wantedDescription(specifier)) }
        switch (specifier, value) {
        case (.integer, .int):
            return argument
        case (.unsigned, .int(let integer)):
            guard integer >= 0 else { throw mismatch("an integer that is not negative") }
            return argument
        case (.floating, .double), (.floating, .float):
            return argument
        case (.floating, .int(let integer)):
            return .value(.double(Double(integer)))
        case (.string, .string):
            return argument
        default:
            throw mismatch(wantedDescription(specifier))
        }
    }

    private static func wantedDescription(_ specifier: FormatSpecifier) -> String {
        switch specifier {
        case .integer, .unsigned: "an integer"
        case .floating: "a number"
        case .string, .keyPath: "a string"
        case .object: "a value"
        }
    }

    /// The tokens of the key path a `%K` argument names: `name`, `owner.name`, `dogs.@count`.
    private static func keyPathTokens(_ argument: QueryArgument, number: Int, at token: Token) throws(QueryError) -> [Token] {
        guard case .value(.string(let path)) = argument else {
            throw QueryError(position: token.start,
                             problem: "%K needs a key path string but argument \(number) is \(describe(argument))")
        }
        var tokens: [Token] = []
        for (offset, component) in path.split(separator: ".", omittingEmptySubsequences: false).enumerated() {
            if offset > 0 { tokens.append(Token(.symbol("."), start: token.start, end: token.end)) }
            let scalars = Array(component.unicodeScalars)
            let isAttribute = scalars.first == "@"
            let name = isAttribute ? scalars.dropFirst() : scalars[...]
            // A property name is bound, not lexed: any name a Swift property can have (emoji
            // included) is accepted; an attribute (`@count`) must be a word.
            let isValidName = isAttribute
                ? name.first.map(\.isIdentifierContinue) == true && name.allSatisfy(\.isIdentifierContinue)
                : !name.isEmpty && !name.contains(where: { $0.properties.isWhitespace })
            guard isValidName, !(isAttribute && offset == 0) else {
                throw QueryError(position: token.start,
                                 problem: "%K needs a key path such as 'name' or 'owner.name' but argument \(number) is \(describe(argument))")
            }
            let text = String(String.UnicodeScalarView(name))
            tokens.append(isAttribute ? Token(.attribute(text.lowercased()), start: token.start, end: token.end)
                                      : Token.propertyName(text, start: token.start, end: token.end))
        }
        return tokens
    }

    /// How an error names an argument: its kind and, for short scalars, its value.
    private static func describe(_ argument: QueryArgument) -> String {
        switch argument {
        case .geo: return "a geo shape"
        case .value(let value):
            switch value {
            case .null: return "nil"
            case .bool(let flag): return "the bool \(flag)"
            case .int(let integer): return "the integer \(integer)"
            case .double(let number): return "the double \(number)"
            case .float(let number): return "the float \(number)"
            case .string(let string):
                let shown = string.count > 40 ? String(string.prefix(40)) + "…" : string
                return "the string \(shown.debugDescription)"
            case .list, .set: return "a list"
            case .link: return "an object"
            default: return "a value of another type"
            }
        }
    }
}
