import StrataEngine
import StrataQuery
import Testing

/// NSPredicate-style format specifiers, as Realm Swift's `filter("name == %@", name)` takes them:
/// bound in order to the arguments, never pasted into the text.
@Suite("RQL parser: NSPredicate format specifiers")
struct ParserFormatSpecifierTests {
    static let cases: [ParseCase] = [
        ParseCase("name == %@", [.value(.string("Rex"))], AST.compare(AST.path("name"), .equal, AST.string("Rex"))),
        ParseCase("age > %d", [.value(.int(18))], AST.compare(AST.path("age"), .greater, AST.int(18))),
        ParseCase("age > %ld AND age < %lld", [.value(.int(1)), .value(.int(9))],
                  .and([AST.compare(AST.path("age"), .greater, AST.int(1)), AST.compare(AST.path("age"), .less, AST.int(9))])),
        ParseCase("age >= %i OR age == %u", [.value(.int(-1)), .value(.int(3))],
                  .or([AST.compare(AST.path("age"), .greaterOrEqual, AST.int(-1)), AST.compare(AST.path("age"), .equal, AST.int(3))])),
        ParseCase("weight < %f", [.value(.double(2.5))], AST.compare(AST.path("weight"), .less, AST.double(2.5))),
        ParseCase("weight < %lf", [.value(.int(3))], AST.compare(AST.path("weight"), .less, AST.double(3))),
        ParseCase("weight < %g", [.value(.float(1.5))], AST.compare(AST.path("weight"), .less, .value(.float(1.5)))),
        ParseCase("name == %s", [.value(.string("x"))], AST.compare(AST.path("name"), .equal, AST.string("x"))),
        ParseCase("%K == %@", [.value(.string("name")), .value(.string("Ada"))],
                  AST.compare(AST.path("name"), .equal, AST.string("Ada"))),
        ParseCase("%K BEGINSWITH[c] %@", [.value(.string("dog.name")), .value(.string("r"))],
                  AST.compare(AST.path("dog.name"), .beginsWith, AST.string("r"), .caseInsensitive)),
        ParseCase("%K > 1", [.value(.string("dogs.@count"))],
                  AST.compare(AST.path([.property("dogs"), .count]), .greater, AST.int(1))),
        // A %K that spells a keyword is still a property.
        ParseCase("%K == 1", [.value(.string("and"))], AST.compare(AST.path("and"), .equal, AST.int(1))),
        // Any name a Swift property can have, emoji included, is a property.
        ParseCase("%K == 1", [.value(.string("柱колоé👍"))], AST.compare(AST.path("柱колоé👍"), .equal, AST.int(1))),
        ParseCase("id IN %@", [.value(.list([.int(1), .int(2)]))],
                  .inList(AST.path("id"), .list([AST.int(1), AST.int(2)]), quantifier: .any)),
        ParseCase("%@ IN tags", [.value(.string("x"))], .inList(AST.string("x"), AST.path("tags"), quantifier: .any)),
        ParseCase("owner == %@", [.value(.null)], AST.compare(AST.path("owner"), .equal, .value(.null))),
        ParseCase("name == %@", [.value(.string("O'Brien \"Jr\" \\ %@"))],
                  AST.compare(AST.path("name"), .equal, AST.string("O'Brien \"Jr\" \\ %@"))),
        // Quoted text is literal, as in NSPredicate: no substitution inside quotes.
        ParseCase("name == '%@' AND code == \"100%\"",
                  .and([AST.compare(AST.path("name"), .equal, AST.string("%@")), AST.compare(AST.path("code"), .equal, AST.string("100%"))])),
        ParseCase("done == NO AND ok == yes AND a == TRUE AND b == false",
                  .and([AST.compare(AST.path("done"), .equal, .value(.bool(false))),
                        AST.compare(AST.path("ok"), .equal, .value(.bool(true))),
                        AST.compare(AST.path("a"), .equal, .value(.bool(true))),
                        AST.compare(AST.path("b"), .equal, .value(.bool(false)))])),
        ParseCase("a IN {YES, NO}", .inList(AST.path("a"), .list([.value(.bool(true)), .value(.bool(false))]), quantifier: .any)),
        ParseCase("scores[%@] > %d", [.value(.string("math")), .value(.int(5))],
                  AST.compare(AST.path([.property("scores"), .mapKey("math")]), .greater, AST.int(5))),
        ParseCase("age BETWEEN %@", [.value(.list([.int(1), .int(5)]))],
                  .between(AST.path("age"), lower: AST.int(1), upper: AST.int(5), quantifier: .any)),
        ParseCase("TRUEPREDICATE SORT(%K DESC) LIMIT(%d)", [.value(.string("age")), .value(.int(2))],
                  AST.query(.constant(true), sort: [SortKey(QueryKeyPath("age"), ascending: false)], limit: 2)),
    ]

    @Test("format specifiers bind the arguments in order, as NSPredicate does", arguments: cases)
    func parses(_ row: ParseCase) { row.check() }

    static let errors: [ErrorCase] = [
        ErrorCase("name == %@", at: 8, "the query has 1 format specifier but 0 arguments were given at position 8"),
        ErrorCase("a == %@ AND b == %@", [.value(.int(1))], at: 17,
                  "the query has 2 format specifiers but 1 argument was given at position 17"),
        ErrorCase("a == %@", [.value(.int(1)), .value(.int(2))], at: 5,
                  "the query has 1 format specifier but 2 arguments were given at position 5"),
        ErrorCase("age > %d", [.value(.string("x"))], at: 6,
                  "%d needs an integer but argument 0 is the string \"x\" at position 6"),
        ErrorCase("age > %d", [.value(.double(1.5))], at: 6, "%d needs an integer but argument 0 is the double 1.5 at position 6"),
        ErrorCase("age > %u", [.value(.int(-1))], at: 6,
                  "%u needs an integer that is not negative but argument 0 is the integer -1 at position 6"),
        ErrorCase("w > %f", [.value(.string("1"))], at: 4, "%f needs a number but argument 0 is the string \"1\" at position 4"),
        ErrorCase("s == %s", [.value(.int(1))], at: 5, "%s needs a string but argument 0 is the integer 1 at position 5"),
        ErrorCase("%K == 1", [.value(.int(1))], at: 0, "%K needs a key path string but argument 0 is the integer 1 at position 0"),
        ErrorCase("%K == 1", [.value(.string("a b"))], at: 0,
                  "%K needs a key path such as 'name' or 'owner.name' but argument 0 is the string \"a b\" at position 0"),
        ErrorCase("%K == 1", [.value(.string("a..b"))], at: 0,
                  "%K needs a key path such as 'name' or 'owner.name' but argument 0 is the string \"a..b\" at position 0"),
        ErrorCase("a == %@ AND b == $0", [.value(.int(1))], at: 17,
                  "a query takes either $n arguments or format specifiers such as %@, not both at position 17"),
        ErrorCase("a == 100%%", at: 8, "'%%' (a percent sign) can only appear inside a quoted string at position 8"),
        ErrorCase("a == %x", [.value(.int(1))], at: 5,
                  "unsupported format specifier '%x'; expected %@, %K, %d, %i, %u, %f, %g or %s at position 5"),
        ErrorCase("a == %", at: 5, "expected a format specifier such as %@, %K or %d after '%' at position 5"),
        ErrorCase("a == %dx", [.value(.int(1))], at: 5, "unexpected 'x' right after the format specifier '%d' at position 5"),
        ErrorCase("a GEOWITHIN %@", [.value(.int(1))], at: 12, "argument $0 after GEOWITHIN must be a geo shape at position 12"),
    ]

    @Test("a missing, extra or mistyped argument is a positioned QueryError, never a trap", arguments: errors)
    func fails(_ row: ErrorCase) { row.check() }
}
