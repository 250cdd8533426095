import StrataEngine
import StrataQuery
import Testing

private typealias A = AST

/// Operators, boolean structure, quantifiers, key paths and subqueries.
@Suite("RQL parser: predicates")
struct ParserPredicateTests {
    static let cases: [ParseCase] = [
        // Comparison operators, every spelling; either side may be the key path.
        ParseCase("age == 5", A.compare(A.path("age"), .equal, A.int(5))),
        ParseCase("age = 5", A.compare(A.path("age"), .equal, A.int(5))),
        ParseCase("age != 5", A.compare(A.path("age"), .notEqual, A.int(5))),
        ParseCase("age <> 5", A.compare(A.path("age"), .notEqual, A.int(5))),
        ParseCase("age < 5", A.compare(A.path("age"), .less, A.int(5))),
        ParseCase("age <= 5", A.compare(A.path("age"), .lessOrEqual, A.int(5))),
        ParseCase("age =< 5", A.compare(A.path("age"), .lessOrEqual, A.int(5))),
        ParseCase("age>5", A.compare(A.path("age"), .greater, A.int(5))),
        ParseCase("age >= 5", A.compare(A.path("age"), .greaterOrEqual, A.int(5))),
        ParseCase("age => 5", A.compare(A.path("age"), .greaterOrEqual, A.int(5))),
        ParseCase("5 < age", A.compare(A.int(5), .less, A.path("age"))),
        ParseCase("age == other", A.compare(A.path("age"), .equal, A.path("other"))),
        // A key path may start with `@links.Class.property`, as in Realm.
        ParseCase("@links.Dog.owner.name == 'Rex'",
                  A.compare(A.path([.backlinks(table: "Dog", property: "owner"), .property("name")]), .equal, A.string("Rex"))),
        // String operators and options.
        ParseCase("name BEGINSWITH 'J'", A.compare(A.path("name"), .beginsWith, A.string("J"))),
        ParseCase("name endswith \"n\"", A.compare(A.path("name"), .endsWith, A.string("n"))),
        ParseCase("name CONTAINS[c] 'oh'", A.compare(A.path("name"), .contains, A.string("oh"), .caseInsensitive)),
        ParseCase("name LIKE[cd] 'J*n?'",
                  A.compare(A.path("name"), .like, A.string("J*n?"), [.caseInsensitive, .diacriticInsensitive])),
        ParseCase("name ==[d] 'é'", A.compare(A.path("name"), .equal, A.string("é"), .diacriticInsensitive)),
        ParseCase("name !=[c] 'x'", A.compare(A.path("name"), .notEqual, A.string("x"), .caseInsensitive)),
        ParseCase("name Like [ C ] 'x'", A.compare(A.path("name"), .like, A.string("x"), .caseInsensitive)),
        // AND, OR, NOT: precedence NOT > AND > OR, flattened.
        ParseCase("a == 1 AND b == 2 && c == 3", .and([a1, b2, c3])),
        ParseCase("a == 1 OR b == 2 || c == 3", .or([a1, b2, c3])),
        ParseCase("a == 1 or b == 2 and c == 3", .or([a1, .and([b2, c3])])),
        ParseCase("a == 1 AND b == 2 OR c == 3", .or([.and([a1, b2]), c3])),
        ParseCase("NOT a == 1 AND b == 2", .and([.not(a1), b2])),
        ParseCase("!(a == 1 OR b == 2)", .not(.or([a1, b2]))),
        ParseCase("not not a == 1", .not(.not(a1))),
        ParseCase("!!a == 1", .not(.not(a1))),
        ParseCase("(a == 1 AND b == 2) AND c == 3", .and([a1, b2, c3])),
        ParseCase("(a == 1 OR b == 2) AND (c == 3)", .and([.or([a1, b2]), c3])),
        ParseCase("((a == 1))", a1),
        ParseCase("TRUEPREDICATE", .constant(true)),
        ParseCase("falsepredicate", .constant(false)),
        ParseCase("TRUEPREDICATE && NOT FALSEPREDICATE", .and([.constant(true), .not(.constant(false))])),
        ParseCase("\n\ta\n==\r\n1\t", a1),
        // IN and BETWEEN.
        ParseCase("age IN {1, 2, 3}", .inList(A.path("age"), .list([A.int(1), A.int(2), A.int(3)]), quantifier: .any)),
        ParseCase("name in {'a', \"b\", nil}",
                  .inList(A.path("name"), .list([A.string("a"), A.string("b"), .value(.null)]), quantifier: .any)),
        ParseCase("age IN {}", .inList(A.path("age"), .list([]), quantifier: .any)),
        ParseCase("age IN $0", [.value(.list([.int(1), .int(2)]))],
                  .inList(A.path("age"), .list([A.int(1), A.int(2)]), quantifier: .any)),
        ParseCase("'x' IN tags", .inList(A.string("x"), A.path("tags"), quantifier: .any)),
        ParseCase("age BETWEEN {18, 65}", .between(A.path("age"), lower: A.int(18), upper: A.int(65), quantifier: .any)),
        ParseCase("ANY scores between {1.5, $0}", [.value(.int(2))],
                  .between(A.path("scores"), lower: A.double(1.5), upper: A.int(2), quantifier: .any)),
        ParseCase("ALL ages IN {1}", .inList(A.path("ages"), .list([A.int(1)]), quantifier: .all)),
        // Quantifiers.
        ParseCase("ANY dogs.age > 5", A.compare(A.path("dogs.age"), .greater, A.int(5), [], .any)),
        ParseCase("SOME dogs.age > 5", A.compare(A.path("dogs.age"), .greater, A.int(5), [], .any)),
        ParseCase("all dogs.age > 5", A.compare(A.path("dogs.age"), .greater, A.int(5), [], .all)),
        ParseCase("any == 1 AND all.x == 2", .and([A.compare(A.path("any"), .equal, A.int(1)),
                                                   A.compare(A.path("all.x"), .equal, A.int(2))])),
        ParseCase("NONE dogs.name ==[c] 'rex'",
                  A.compare(A.path("dogs.name"), .equal, A.string("rex"), .caseInsensitive, .none)),
        // Key paths.
        ParseCase("owner.address.city == 'Oslo'", A.compare(A.path("owner.address.city"), .equal, A.string("Oslo"))),
        ParseCase("dogs.@count > 2", A.compare(A.path([.property("dogs"), .count]), .greater, A.int(2))),
        ParseCase("name.@size == 4", A.compare(A.path([.property("name"), .count]), .equal, A.int(4))),
        ParseCase("dogs.@COUNT > 1", A.compare(A.path([.property("dogs"), .count]), .greater, A.int(1))),
        ParseCase("scores.@sum > 10", A.compare(A.path([.property("scores"), .aggregate(.sum)]), .greater, A.int(10))),
        ParseCase("scores.@avg > 10", A.compare(A.path([.property("scores"), .aggregate(.avg)]), .greater, A.int(10))),
        ParseCase("dogs.age.@min > 1", A.compare(A.path([.property("dogs"), .property("age"), .aggregate(.min)]),
                                                 .greater, A.int(1))),
        ParseCase("scores.@max < 9", A.compare(A.path([.property("scores"), .aggregate(.max)]), .less, A.int(9))),
        ParseCase("map['key'] == 1", A.compare(A.path([.property("map"), .mapKey("key")]), .equal, A.int(1))),
        ParseCase("map[\"a b\"].@count == 0",
                  A.compare(A.path([.property("map"), .mapKey("a b"), .count]), .equal, A.int(0))),
        ParseCase("map[$0] == 1", [.value(.string("k"))],
                  A.compare(A.path([.property("map"), .mapKey("k")]), .equal, A.int(1))),
        ParseCase("map.@keys == 'a'", A.compare(A.path([.property("map"), .keys]), .equal, A.string("a"))),
        ParseCase("ANY map.@allKeys == 'a'", A.compare(A.path([.property("map"), .keys]), .equal, A.string("a"))),
        ParseCase("map.@allValues == 1", A.compare(A.path([.property("map"), .values]), .equal, A.int(1))),
        ParseCase("map.@values > 2", A.compare(A.path([.property("map"), .values]), .greater, A.int(2))),
        ParseCase("mixed.@type == 'string'", A.compare(A.path([.property("mixed"), .type]), .equal, A.string("string"))),
        ParseCase("a.limit == 1 AND sort == 2 AND a.contains == 3",
                  .and([A.compare(A.path("a.limit"), .equal, A.int(1)), A.compare(A.path("sort"), .equal, A.int(2)),
                        A.compare(A.path("a.contains"), .equal, A.int(3))])),
        ParseCase("naïve_名前 == 1", A.compare(A.path("naïve_名前"), .equal, A.int(1))),
        // Subqueries.
        ParseCase("SUBQUERY(dogs, $d, $d.age > 5 AND $d.name BEGINSWITH 'R').@count > 0",
                  A.compare(.subqueryCount(collection: QueryKeyPath("dogs"), variable: "$d", predicate: .and([
                      A.compare(A.path([.property("age")], variable: "$d"), .greater, A.int(5)),
                      A.compare(A.path([.property("name")], variable: "$d"), .beginsWith, A.string("R")),
                  ])), .greater, A.int(0))),
        ParseCase("subquery(tags, $t, $t == 'a').@size == 1",
                  A.compare(.subqueryCount(collection: QueryKeyPath("tags"), variable: "$t",
                                           predicate: A.compare(A.path([], variable: "$t"), .equal, A.string("a"))),
                            .equal, A.int(1))),
        ParseCase("SUBQUERY(owners, $o, SUBQUERY($o.dogs, $d, $d.age > $o.age).@count > 0).@count > 0",
                  A.compare(.subqueryCount(collection: QueryKeyPath("owners"), variable: "$o", predicate: A.compare(
                      .subqueryCount(collection: QueryKeyPath([.property("dogs")], variable: "$o"), variable: "$d",
                                     predicate: A.compare(A.path([.property("age")], variable: "$d"), .greater,
                                                          A.path([.property("age")], variable: "$o"))),
                      .greater, A.int(0))), .greater, A.int(0))),
        // Arguments.
        ParseCase("age > $0 AND name == $1", [.value(.int(3)), .value(.string("x"))],
                  .and([A.compare(A.path("age"), .greater, A.int(3)), A.compare(A.path("name"), .equal, A.string("x"))])),
        ParseCase("tags == $0", [.value(.list([.int(1)]))], A.compare(A.path("tags"), .equal, .value(.list([.int(1)])))),
        ParseCase("$1 < age", [.value(.null), .value(.double(2))], A.compare(A.double(2), .less, A.path("age"))),
    ]

    static let a1 = A.compare(A.path("a"), .equal, A.int(1))
    static let b2 = A.compare(A.path("b"), .equal, A.int(2))
    static let c3 = A.compare(A.path("c"), .equal, A.int(3))

    @Test("each predicate parses to the expected AST", arguments: cases)
    func parses(_ row: ParseCase) {
        row.check()
    }
}
