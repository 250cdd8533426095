@_spi(StrataDaemon) import StrataQuery
import Testing

/// ``QueryPatterns``: the pattern operands a service bounds before it runs a query from the network.
@Suite("Query pattern operands")
struct QueryPatternsTests {
    @Test("every string operand of LIKE, CONTAINS, BEGINSWITH and ENDSWITH counts, wherever it sits", arguments: [
        ("source LIKE '*ab'", [3]),
        ("type == 'a' OR NOT (source CONTAINS[c] 'xyz')", [3]),
        ("'abcd' BEGINSWITH source", [4]),
        ("source ENDSWITH {'a', 'bc'}", [1, 2]),
        ("SUBQUERY(payload, $x, $x LIKE 'abcde').@count > 0", [5]),
        ("name LIKE 'é*'", [2]),
    ])
    func patternOperands(query: String, lengths: [Int]) {
        #expect(QueryPatterns.operandLengths(in: query) == lengths)
    }

    @Test("operands of other operators do not count, and a query that does not parse has none")
    func otherOperands() {
        #expect(QueryPatterns.operandLengths(in: "source == 'abcdef' AND age > 3") == [])
        #expect(QueryPatterns.operandLengths(in: "source ==") == nil)
    }
}
