import StrataEngine
import StrataQuery
import Testing

private typealias A = AST

/// Literal values, geo shapes and the SORT/DISTINCT/LIMIT suffixes.
@Suite("RQL parser: literals, geo shapes and suffixes")
struct ParserLiteralTests {
    private static func x(_ text: String, _ value: Value) -> ParseCase {
        ParseCase("x == \(text)", A.compare(A.path("x"), .equal, .value(value)))
    }

    static let literals: [ParseCase] = [
        x("nil", .null), x("NULL", .null), x("true", .bool(true)), x("FALSE", .bool(false)),
        x("42", .int(42)), x("-42", .int(-42)), x("007", .int(7)), x("0x1F", .int(31)), x("-0x10", .int(-16)),
        x("9223372036854775807", .int(.max)), x("-9223372036854775808", .int(.min)),
        x("3.25", .double(3.25)), x("1e3", .double(1000)), x("-2.5E-2", .double(-0.025)), x(".5", .double(0.5)),
        x("-.5", .double(-0.5)), x("1.5e+2", .double(150)),
        x("'it\\'s'", .string("it's")), x("\"say \\\"hi\\\"\"", .string("say \"hi\"")),
        x("'a\\nb\\tc\\\\d\\/'", .string("a\nb\tc\\d/")), x("'\\u00e9\\u00E9'", .string("éé")),
        x("'\\ud83d\\ude00'", .string("😀")), x("''", .string("")), x("'naïve 日本 😀'", .string("naïve 日本 😀")),
        x("\"it's\"", .string("it's")),
        x("T1700000000:500", .timestamp(Timestamp(seconds: 1_700_000_000, nanoseconds: 500))),
        x("T-1:-500000000", .timestamp(Timestamp(seconds: -2, nanoseconds: 500_000_000))),
        x("T0:0", .timestamp(Timestamp(seconds: 0))),
        x("2024-01-31@12:00:00", .timestamp(Timestamp(seconds: 1_706_702_400))),
        x("2024-02-29@23:59:59:123456789", .timestamp(Timestamp(seconds: 1_709_251_199, nanoseconds: 123_456_789))),
        x("1969-12-31T23:59:59", .timestamp(Timestamp(seconds: -1))),
        x("0001-01-01@00:00:00", .timestamp(Timestamp(seconds: -62_135_596_800))),
        x("oid(507f1f77bcf86cd799439011)", .objectId(ObjectIdBits(head: 0x507f_1f77_bcf8_6cd7, tail: 0x9943_9011))),
        x("uuid(3b241101-e2bb-4255-8caf-4136c566a962)",
          .uuid(UUIDBits(high: 0x3b24_1101_e2bb_4255, low: 0x8caf_4136_c566_a962))),
        x("B64\"SGVsbG8=\"", .binary(Array("Hello".utf8))), x("B64'AQID'", .binary([1, 2, 3])), x("B64\"\"", .binary([])),
    ]

    static let geoAndSuffixes: [ParseCase] = [
        ParseCase("loc GEOWITHIN geoBox([-1.5, 2], [3, 4.5])",
                  .geoWithin(QueryKeyPath("loc"), .box(bottomLeft: A.point(-1.5, 2), topRight: A.point(3, 4.5)))),
        ParseCase("loc geoWithin geoCircle([10, -20], 0.01)",
                  .geoWithin(QueryKeyPath("loc"), .circle(center: A.point(10, -20), radiusRadians: 0.01))),
        ParseCase("loc GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1], [0, 0]}, {[0.5, 0.1], [0.8, 0.1], [0.8, 0.4], [0.5, 0.1]})",
                  .geoWithin(QueryKeyPath("loc"), .polygon(
                      outer: [A.point(0, 0), A.point(1, 0), A.point(1, 1), A.point(0, 0)],
                      holes: [[A.point(0.5, 0.1), A.point(0.8, 0.1), A.point(0.8, 0.4), A.point(0.5, 0.1)]]))),
        ParseCase("home.loc GEOWITHIN $0", [.geo(.circle(center: A.point(1, 2), radiusRadians: 3))],
                  .geoWithin(QueryKeyPath("home.loc"), .circle(center: A.point(1, 2), radiusRadians: 3))),
        ParseCase("age > 5 SORT(age ASC, owner.name DESC)", A.query(
            A.compare(A.path("age"), .greater, A.int(5)),
            sort: [SortKey(QueryKeyPath("age")), SortKey(QueryKeyPath("owner.name"), ascending: false)])),
        ParseCase("age > 5 DISTINCT(name, age) LIMIT(10)", A.query(
            A.compare(A.path("age"), .greater, A.int(5)),
            distinct: [QueryKeyPath("name"), QueryKeyPath("age")], limit: 10)),
        ParseCase("LIMIT(5) sort(a descending) Distinct(b)", A.query(
            .constant(true), sort: [SortKey(QueryKeyPath("a"), ascending: false)], distinct: [QueryKeyPath("b")], limit: 5)),
        ParseCase("TRUEPREDICATE SORT(a ascending) limit(0)", A.query(
            .constant(true), sort: [SortKey(QueryKeyPath("a"))], limit: 0)),
        ParseCase("SORT(dogs.@count DESC)", A.query(
            .constant(true), sort: [SortKey(QueryKeyPath([.property("dogs"), .count]), ascending: false)])),
        ParseCase("a == 1 OR b == 2 LIMIT(1)", A.query(.or([ParserPredicateTests.a1, ParserPredicateTests.b2]), limit: 1)),
    ]

    @Test("each literal parses to the expected value", arguments: literals)
    func literal(_ row: ParseCase) {
        row.check()
    }

    @Test("geo shapes and SORT, DISTINCT, LIMIT suffixes parse", arguments: geoAndSuffixes)
    func geoAndSuffix(_ row: ParseCase) {
        row.check()
    }

    @Test("a $n argument is substituted in every position that takes a value")
    func argumentsEverywhere() throws {
        let query = try RQLParser.parse("a == $0 AND b IN {$1, 2} AND c BETWEEN $2",
                                        arguments: [.value(.bool(true)), .value(.string("s")), .value(.list([.int(1), .int(9)]))])
        #expect(query.predicate == .and([
            A.compare(A.path("a"), .equal, .value(.bool(true))),
            .inList(A.path("b"), .list([A.string("s"), A.int(2)]), quantifier: .any),
            .between(A.path("c"), lower: A.int(1), upper: A.int(9), quantifier: .any),
        ]))
    }
}
