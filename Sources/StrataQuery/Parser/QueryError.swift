import StrataEngine

/// A value bound to a `$n` placeholder of a Realm Query Language query.
package enum QueryArgument: Sendable, Hashable {
    /// A value: a scalar, or a `.list` for `IN $n`, or a `.string` for `map[$n]`.
    case value(Value)
    /// A region for `GEOWITHIN $n`.
    case geo(GeoShape)
}

/// Why a query did not parse: where, and what was expected or found there.
package struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 0-based offset, in Unicode scalars, of the offending token in the query text.
    package let position: Int
    /// What was expected or found, ending with the position, e.g.
    /// "expected a value after '==' but found the end of the query at position 9".
    package let message: String

    /// Creates an error whose message is `problem` followed by " at position `position`".
    package init(position: Int, problem: String) {
        self.position = position
        self.message = "\(problem) at position \(position)"
    }

    /// Creates an error with a message used as given.
    package init(position: Int, message: String) {
        self.position = position
        self.message = message
    }

    package var description: String { "invalid query: \(message)" }
}
