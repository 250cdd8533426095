/// A query that cannot be parsed or does not fit the schema: where and what was expected.
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 0-based character offset in the query text (0 for errors found against the schema).
    public let position: Int
    /// What was expected or found, e.g. "expected a value after '==' at position 9".
    public let message: String

    /// Creates an error.
    public init(position: Int, message: String) {
        self.position = position
        self.message = message
    }

    public var description: String { message }
}
