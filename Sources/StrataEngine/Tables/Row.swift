/// The values of one object, one per column of its table's schema.
public struct Row: Hashable, Sendable {
    /// The values in column order.
    public internal(set) var values: [Value]

    /// Creates a row from its values.
    public init(_ values: [Value]) { self.values = values }

    /// The value of the column at `column`.
    public subscript(column: Int) -> Value {
        get { values[column] }
        set { values[column] = newValue }
    }
}
