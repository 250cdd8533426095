import StrataEngine

/// A filter over the objects of one table: the common output of the Realm Query Language parser
/// and the type-safe `where { }` builder, evaluated against a snapshot.
package indirect enum QueryPredicate: Hashable, Sendable {
    /// `TRUEPREDICATE` (`true`) or `FALSEPREDICATE` (`false`).
    case constant(Bool)
    /// All of the predicates hold (`AND`, `&&`).
    case and([QueryPredicate])
    /// Any of the predicates holds (`OR`, `||`).
    case or([QueryPredicate])
    /// The predicate does not hold (`NOT`, `!`).
    case not(QueryPredicate)
    /// `left op right`. When `left` (or `right`) goes through a to-many relationship, the
    /// quantifier says whether some (`ANY`, the default), every (`ALL`) or no (`NONE`) element
    /// must match.
    case comparison(Comparison)
    /// `left BETWEEN {lower, upper}`: lower ≤ left ≤ upper.
    case between(Operand, lower: Operand, upper: Operand, quantifier: Quantifier)
    /// `left IN {a, b, …}` or `left IN $0` (a list argument).
    case inList(Operand, Operand, quantifier: Quantifier)
    /// `left GEOWITHIN shape`: the GeoJSON point at `left` lies in the shape.
    case geoWithin(QueryKeyPath, GeoShape)
}

/// One comparison of a predicate.
package struct Comparison: Hashable, Sendable {
    /// The left side (usually a key path).
    package var left: Operand
    /// The operator.
    package var op: ComparisonOperator
    /// The right side (usually a value).
    package var right: Operand
    /// `[c]`, `[d]`, `[cd]` for string operators.
    package var options: StringOptions
    /// `ANY` (default), `ALL` or `NONE` for key paths through collections.
    package var quantifier: Quantifier

    /// Creates a comparison.
    package init(_ left: Operand, _ op: ComparisonOperator, _ right: Operand,
                options: StringOptions = [], quantifier: Quantifier = .any) {
        self.left = left
        self.op = op
        self.right = right
        self.options = options
        self.quantifier = quantifier
    }
}

/// A comparison operator of the Realm Query Language.
package enum ComparisonOperator: String, Hashable, Sendable {
    /// The comparisons and the string operators, spelled as in the language.
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    /// String operators.
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE"
}

/// How a comparison through a to-many key path combines its elements.
package enum Quantifier: String, Hashable, Sendable {
    /// Some element matches; every element matches (true when empty); no element matches.
    case any = "ANY", all = "ALL", none = "NONE"
}

/// String comparison options: `[c]` and `[d]`.
package struct StringOptions: OptionSet, Hashable, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `[c]`: ignore case.
    package static let caseInsensitive = StringOptions(rawValue: 1)
    /// `[d]`: ignore diacritics.
    package static let diacriticInsensitive = StringOptions(rawValue: 2)
}

/// One side of a comparison.
package indirect enum Operand: Hashable, Sendable {
    /// A key path from the object being tested (or from a subquery variable).
    case keyPath(QueryKeyPath)
    /// A literal or a bound argument value.
    case value(Value)
    /// `$n`, bound to an argument before evaluation.
    case argument(Int)
    /// A list literal `{a, b, c}`.
    case list([Operand])
    /// `SUBQUERY(collection, $x, predicate).@count`: how many elements match.
    case subqueryCount(collection: QueryKeyPath, variable: String, predicate: QueryPredicate)
}

/// A path from an object through its properties: `owner.address.city`, `dogs.@count`,
/// `scores['math']`, `tags.@values`.
package struct QueryKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// Where the path starts: the object being tested, or a subquery variable (`$x`).
    package var variable: String?
    /// The steps.
    package var components: [KeyPathComponent]

    /// Creates a key path.
    package init(_ components: [KeyPathComponent], variable: String? = nil) {
        self.components = components
        self.variable = variable
    }

    /// A path of property names, e.g. `QueryKeyPath("owner.name")`.
    package init(_ dotted: String) {
        self.init(dotted.split(separator: ".").map { .property(String($0)) })
    }

    package var description: String {
        (variable.map { [$0] } ?? []).joined() + components.map(\.description).joined(separator: ".")
    }
}

/// One step of a key path.
package enum KeyPathComponent: Hashable, Sendable, CustomStringConvertible {
    /// A property (column) name; through links it continues in the target table.
    case property(String)
    /// `map['key']` / `map[$0]` on a dictionary.
    case mapKey(String)
    /// `@count` / `@size`: the number of elements of a collection or characters of a string/binary.
    case count
    /// `@sum`, `@avg`, `@min`, `@max` over a collection's elements.
    case aggregate(AggregateKind)
    /// `@keys` of a dictionary.
    case keys
    /// `@values` of a dictionary.
    case values
    /// `@type` of a mixed value.
    case type
    /// `@links.Class.property`: the objects of `Class` whose `property` links here (the
    /// `LinkingObjects` of the model layer).
    case backlinks(table: String, property: String)

    package var description: String {
        switch self {
        case .property(let name): name
        case .mapKey(let key): "['\(key)']"
        case .count: "@count"
        case .aggregate(let kind): "@\(kind.rawValue)"
        case .keys: "@keys"
        case .values: "@values"
        case .type: "@type"
        case .backlinks(let table, let property): "@links.\(table).\(property)"
        }
    }
}

/// An aggregate over a collection.
package enum AggregateKind: String, Hashable, Sendable {
    /// `@sum`, `@avg`, `@min`, `@max`.
    case sum, avg, min, max
}

/// How to order results: a key path and a direction.
package struct SortKey: Hashable, Sendable {
    /// The property path to sort by (through to-one links).
    package var keyPath: QueryKeyPath
    /// Whether smaller values come first.
    package var ascending: Bool

    /// Creates a sort key.
    package init(_ keyPath: QueryKeyPath, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}

/// A parsed query: the predicate plus the `SORT(…)`, `DISTINCT(…)` and `LIMIT(n)` suffixes.
package struct ParsedQuery: Hashable, Sendable {
    /// The filter.
    package var predicate: QueryPredicate
    /// `SORT(a ASC, b DESC)`, in order.
    package var sort: [SortKey]
    /// `DISTINCT(a, b)`.
    package var distinct: [QueryKeyPath]
    /// `LIMIT(n)`.
    package var limit: Int?

    /// Creates a query.
    package init(predicate: QueryPredicate, sort: [SortKey] = [], distinct: [QueryKeyPath] = [], limit: Int? = nil) {
        self.predicate = predicate
        self.sort = sort
        self.distinct = distinct
        self.limit = limit
    }
}

/// A region of the globe for `GEOWITHIN`, in degrees (longitude first, as GeoJSON).
package enum GeoShape: Hashable, Sendable {
    /// The box between two corners.
    case box(bottomLeft: GeoCoordinate, topRight: GeoCoordinate)
    /// A circle around a center; the radius in radians (distance over the earth's radius).
    case circle(center: GeoCoordinate, radiusRadians: Double)
    /// A polygon: an outer ring and holes, each ring closed (first point == last point).
    case polygon(outer: [GeoCoordinate], holes: [[GeoCoordinate]])
}

/// A point on the globe.
package struct GeoCoordinate: Hashable, Sendable {
    /// Degrees of latitude, -90...90.
    package var latitude: Double
    /// Degrees of longitude, -180...180.
    package var longitude: Double

    /// Creates a point.
    package init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}
