import StrataEngine
import StrataQuery
import Testing

/// Builders that keep the expected ASTs of the parser tests short.
enum AST {
    static func path(_ dotted: String) -> Operand { .keyPath(QueryKeyPath(dotted)) }
    static func path(_ components: [KeyPathComponent], variable: String? = nil) -> Operand {
        .keyPath(QueryKeyPath(components, variable: variable))
    }
    static func int(_ value: Int64) -> Operand { .value(.int(value)) }
    static func double(_ value: Double) -> Operand { .value(.double(value)) }
    static func string(_ value: String) -> Operand { .value(.string(value)) }
    static func timestamp(_ seconds: Int64, _ nanoseconds: Int32 = 0) -> Operand {
        .value(.timestamp(Timestamp(seconds: seconds, nanoseconds: nanoseconds)))
    }

    static func compare(_ left: Operand, _ op: ComparisonOperator, _ right: Operand,
                        _ options: StringOptions = [], _ quantifier: Quantifier = .any) -> QueryPredicate {
        .comparison(Comparison(left, op, right, options: options, quantifier: quantifier))
    }

    /// `property op value` as a whole query.
    static func query(_ predicate: QueryPredicate, sort: [SortKey] = [], distinct: [QueryKeyPath] = [],
                      limit: Int? = nil) -> ParsedQuery {
        ParsedQuery(predicate: predicate, sort: sort, distinct: distinct, limit: limit)
    }

    static func point(_ longitude: Double, _ latitude: Double) -> GeoCoordinate {
        GeoCoordinate(latitude: latitude, longitude: longitude)
    }
}

/// One row of a table-driven parser test.
struct ParseCase: Sendable, CustomTestStringConvertible {
    var text: String
    var arguments: [QueryArgument] = []
    var expected: ParsedQuery

    init(_ text: String, _ arguments: [QueryArgument], _ expected: ParsedQuery) {
        self.text = text
        self.arguments = arguments
        self.expected = expected
    }

    init(_ text: String, _ expected: ParsedQuery) {
        self.init(text, [], expected)
    }

    init(_ text: String, _ arguments: [QueryArgument], _ predicate: QueryPredicate) {
        self.init(text, arguments, ParsedQuery(predicate: predicate))
    }

    init(_ text: String, _ predicate: QueryPredicate) {
        self.init(text, [], ParsedQuery(predicate: predicate))
    }

    var testDescription: String { text }

    /// Parses the text and checks the AST.
    func check() {
        do {
            let parsed = try RQLParser.parse(text, arguments: arguments)
            #expect(parsed == expected, "\(text)")
        } catch {
            Issue.record("\(text) did not parse: \(error)")
        }
    }
}

/// One row of a table-driven error test.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    var text: String
    var arguments: [QueryArgument] = []
    var position: Int
    var message: String

    init(_ text: String, _ arguments: [QueryArgument] = [], at position: Int, _ message: String) {
        self.text = text
        self.arguments = arguments
        self.position = position
        self.message = message
    }

    var testDescription: String { text }

    func check() {
        do {
            let parsed = try RQLParser.parse(text, arguments: arguments)
            Issue.record("\(text) parsed as \(parsed) instead of failing")
        } catch {
            #expect(error.position == position, "\(text)")
            #expect(error.message == message, "\(text)")
        }
    }
}
