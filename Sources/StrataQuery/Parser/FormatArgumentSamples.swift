import StrataEngine

/// Arguments that fit a query's placeholders, for the parser's fuzz target and random-input
/// tests: without them a query with format specifiers would only ever reach the "wrong number
/// of arguments" error.
package enum FormatArgumentSamples {
    /// The arguments for `$0`…`$3`: an int, a string (a dictionary key), a list (for `IN` and
    /// `BETWEEN`) and a geo shape.
    package static let dollarArguments: [QueryArgument] = [
        .value(.int(18)), .value(.string("k")), .value(.list([.int(1), .int(2)])),
        .geo(.box(bottomLeft: GeoCoordinate(latitude: 0, longitude: 0), topRight: GeoCoordinate(latitude: 1, longitude: 1))),
    ]

    /// One argument of the right kind per format specifier of `text` (values for `%@` and key
    /// paths for `%K` vary with the position), or ``dollarArguments`` when the text has no
    /// specifier or does not tokenize.
    package static func arguments(for text: String) -> [QueryArgument] {
        guard let tokens = try? Lexer.tokenize(Array(text.unicodeScalars)) else { return dollarArguments }
        var arguments: [QueryArgument] = []
        for case .format(let specifier) in tokens.map(\.kind) {
            let position = arguments.count
            switch specifier {
            case .object:
                let values = [dollarArguments[0], dollarArguments[1], dollarArguments[2], .value(.null), dollarArguments[3]]
                arguments.append(values[position % values.count])
            case .keyPath:
                let paths = ["name", "owner.name", "dogs.@count"]
                arguments.append(.value(.string(paths[position % paths.count])))
            case .integer, .unsigned: arguments.append(.value(.int(18)))
            case .floating: arguments.append(.value(.double(1.5)))
            case .string: arguments.append(.value(.string("s")))
            }
        }
        return arguments.isEmpty ? dollarArguments : arguments
    }
}
