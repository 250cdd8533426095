import StrataEngine
import StrataQuery
import Testing

/// Malformed queries: each is a QueryError at the offending token, saying what was expected.
@Suite("RQL parser: errors")
struct ParserErrorTests {
    static let twoArguments: [QueryArgument] = [.value(.int(1)), .value(.int(2))]

    static let cases: [ErrorCase] = [
        ErrorCase("", at: 0, "expected a predicate but found the end of the query at position 0"),
        ErrorCase("name == 'abc", at: 8, "unterminated string literal at position 8"),
        ErrorCase("name == \"abc\\\"", at: 8, "unterminated string literal at position 8"),
        ErrorCase("age > ", at: 6, "expected a value or key path after '>' but found the end of the query at position 6"),
        ErrorCase("age == AND b == 1", at: 7, "expected a value or key path after '==' but found 'AND' at position 7"),
        ErrorCase("a == 1 AND", at: 10, "expected a predicate after 'AND' but found the end of the query at position 10"),
        ErrorCase("age ~ 5", at: 4, "unexpected character '~' at position 4"),
        ErrorCase("a & b", at: 2, "unknown operator '&'; did you mean '&&'? at position 2"),
        ErrorCase("name STARTSWITH 'J'", at: 5,
                  "expected a comparison operator after 'name' but found 'STARTSWITH' at position 5"),
        ErrorCase("a.b.c 5", at: 6, "expected a comparison operator after 'a.b.c' but found '5' at position 6"),
        ErrorCase("_id == oid(123)", at: 11, "invalid ObjectId '123': expected 24 hexadecimal digits at position 11"),
        ErrorCase("_id == oid(507f1f77bcf86cd799439011", at: 35,
                  "expected ')' to end 'oid(' but found the end of the query at position 35"),
        ErrorCase("u == uuid(3b241101e2bb42558caf4136c566a962)", at: 10,
                  "invalid UUID '3b241101e2bb42558caf4136c566a962': expected 8-4-4-4-12 hexadecimal digits at position 10"),
        ErrorCase("a == $5", twoArguments, at: 5, "argument $5 is out of range: 2 arguments were given at position 5"),
        ErrorCase("a == $0", at: 5, "argument $0 is out of range: 0 arguments were given at position 5"),
        ErrorCase("(a == 1", at: 7, "expected ')' to close the '(' at position 0 but found the end of the query at position 7"),
        ErrorCase("a == 1)", at: 6, "unexpected ')' without a matching '(' at position 6"),
        ErrorCase("a == 1 b", at: 7,
                  "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query after '1' but found 'b' at position 7"),
        ErrorCase("a == 1 LIMIT(2) AND b == 1", at: 16,
                  "expected SORT, DISTINCT, LIMIT or the end of the query after ')' but found 'AND' at position 16"),
        ErrorCase("a == 1 LIMIT(-1)", at: 13, "LIMIT must not be negative but found '-1' at position 13"),
        ErrorCase("LIMIT(1.5)", at: 6, "expected a non-negative integer after '(' but found '1.5' at position 6"),
        ErrorCase("a == 1 SORT(a ASC) SORT(b DESC)", at: 19,
                  "duplicate SORT: SORT, DISTINCT and LIMIT may each appear once at position 19"),
        ErrorCase("a == 1 SORT(a)", at: 13, "expected ASC or DESC after 'a' but found ')' at position 13"),
        ErrorCase("s == 'bad \\q'", at: 10, "invalid escape sequence '\\q' at position 10"),
        ErrorCase("s == '\\u12'", at: 6, "invalid escape sequence: expected 4 hexadecimal digits after '\\u' at position 6"),
        ErrorCase("s == '\\udc00'", at: 6, "invalid escape sequence: '\\uDC00' is an unpaired surrogate at position 6"),
        ErrorCase("a == 'x' 'y'", at: 9,
                  "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query after 'x' but found 'y' at position 9"),
        ErrorCase("'😀e\u{301}' == x y", at: 11,
                  "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query after 'x' but found 'y' at position 11"),
        ErrorCase("'x' 5", at: 4, "expected a comparison operator after 'x' but found '5' at position 4"),
        ErrorCase("name <[c] 'x'", at: 6,
                  "string options are only allowed after ==, !=, BEGINSWITH, ENDSWITH, CONTAINS and LIKE, not after '<' at position 6"),
        ErrorCase("name ==[x] 'x'", at: 8, "expected string options c, d or cd after '[' but found 'x' at position 8"),
        ErrorCase("a BETWEEN {1}", at: 10, "BETWEEN needs exactly two values {lower, upper} but found 1 at position 10"),
        ErrorCase("a IN {1, 2", at: 10,
                  "expected ',' or '}' in the list starting at position 5 after '2' but found the end of the query at position 10"),
        ErrorCase("SUBQUERY(dogs, $d, $d.age > 1) > 0", at: 31,
                  "expected '.@count' or '.@size' after ')' but found '>' at position 31"),
        ErrorCase("$x.age > 1", at: 0, "unknown variable '$x': no enclosing SUBQUERY declares it at position 0"),
        ErrorCase("a.@foo == 1", at: 2,
                  "unknown attribute '@foo'; expected @count, @size, @sum, @avg, @min, @max, @keys, @values or @type at position 2"),
        ErrorCase("a == 99999999999999999999", at: 5, "integer '99999999999999999999' does not fit in 64 bits at position 5"),
        ErrorCase("a == 12abc", at: 5, "invalid number: unexpected 'a' after '12' at position 5"),
        ErrorCase("d == 2024-13-01@00:00:00", at: 5, "invalid timestamp: a field is out of range at position 5"),
        ErrorCase("d == 2024-01-01", at: 5, "invalid timestamp: expected YYYY-MM-DD@HH:MM:SS[:nanoseconds] at position 5"),
        ErrorCase("d == T5:-3", at: 5, "invalid timestamp: seconds and nanoseconds must have the same sign at position 5"),
        ErrorCase("x == B64\"@@\"", at: 8, "invalid base64 data after 'B64' at position 8"),
        ErrorCase("loc GEOWITHIN geoCircle([200, 0], 1)", at: 25, "longitude 200.0 is outside -180...180 at position 25"),
        ErrorCase("loc GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1]})", at: 25,
                  "a polygon ring needs at least 4 points and must end with its first point at position 25"),
        ErrorCase("loc GEOWITHIN $0", [.value(.int(1))], at: 14, "argument $0 after GEOWITHIN must be a geo shape at position 14"),
        ErrorCase("a == $0", [.geo(.circle(center: GeoCoordinate(latitude: 0, longitude: 0), radiusRadians: 1))], at: 5,
                  "argument $0 is a geo shape, which is only allowed after GEOWITHIN at position 5"),
        ErrorCase("map[$0] == 1", [.value(.int(1))], at: 4,
                  "argument $0 must be a string to be used as a dictionary key at position 4"),
        ErrorCase("ANY 5 == a", at: 4, "expected a key path after 'ANY' but found '5' at position 4"),
        ErrorCase("a IN[c] {1}", at: 4,
                  "string options are only allowed after ==, !=, BEGINSWITH, ENDSWITH, CONTAINS and LIKE, not after 'IN' at position 4"),
        ErrorCase("a == -", at: 5, "expected a number after '-' at position 5"),
        ErrorCase("a == $", at: 5, "expected an argument number or a variable name after '$' at position 5"),
    ]

    @Test("each malformed query throws at the offending token", arguments: cases)
    func rejects(_ row: ErrorCase) {
        row.check()
    }

    @Test("200 levels of parentheses or NOT parse; 201 throw instead of overflowing the stack")
    func nestingLimit() throws {
        let depth = RQLParser.maximumDepth
        let parenthesized = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(try RQLParser.parse(parenthesized).predicate == ParserPredicateTests.a1)
        let negated = try RQLParser.parse(String(repeating: "!", count: depth) + "a == 1")
        var expected = ParserPredicateTests.a1
        for _ in 0..<depth { expected = .not(expected) }
        #expect(negated.predicate == expected)

        let tooDeep = String(repeating: "(", count: depth + 1) + "a == 1" + String(repeating: ")", count: depth + 1)
        #expect(throws: QueryError.self) { try RQLParser.parse(tooDeep) }
        do {
            _ = try RQLParser.parse(String(repeating: "NOT (", count: 150) + "a == 1")
            Issue.record("300 levels parsed")
        } catch {
            #expect(error.position == 500)
            #expect(error.message.hasPrefix("the query nests parentheses, NOT and SUBQUERY more than 200 levels deep"))
        }
        var subquery = "a == 1"
        for level in 0...depth { subquery = "SUBQUERY(l, $v\(level), \(subquery)).@count > 0" }
        #expect(throws: QueryError.self) { try RQLParser.parse(subquery) }
        #expect(throws: QueryError.self) { try RQLParser.parse(String(repeating: "(", count: 1_000_000)) }
    }

    @Test("long queries parse in time linear in their length")
    func longQueries() throws {
        let clauses = 20_000
        let text = (0..<clauses).map { "a\($0 % 10) == \($0)" }.joined(separator: " AND ")
        let clock = ContinuousClock()
        let start = clock.now
        var parsed: ParsedQuery?
        let elapsed = try clock.measure { parsed = try RQLParser.parse(text) }
        guard case .and(let parts) = parsed?.predicate else {
            Issue.record("not an AND")
            return
        }
        #expect(parts.count == clauses)
        #expect(elapsed < .seconds(10))
        let longString = "s == '" + String(repeating: "x", count: 1_000_000) + "'"
        #expect(throws: Never.self) { try RQLParser.parse(longString) }
        let longNumber = "a == 1." + String(repeating: "0", count: 1_000_000) + "1"
        #expect(try RQLParser.parse(longNumber).predicate == .comparison(Comparison(.keyPath(QueryKeyPath("a")), .equal, .value(.double(1)))))
        #expect(throws: QueryError.self) { try RQLParser.parse("a == " + String(repeating: "9", count: 1_000_000)) }
        #expect(throws: QueryError.self) { try RQLParser.parse(String(repeating: "a.", count: 500_000)) }
        #expect(clock.now - start < .seconds(20))
    }

    @Test("QueryError describes itself with its message")
    func errorDescription() {
        let error = QueryError(position: 3, problem: "expected a value")
        #expect(error.message == "expected a value at position 3")
        #expect(error.description == "invalid query: expected a value at position 3")
    }
}
