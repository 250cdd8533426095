/// The values of one object, one per column of its table's schema.
package struct Row: Hashable, Sendable {
    /// The values in column order.
    package internal(set) var values: [Value]

    /// Creates a row from its values.
    package init(_ values: [Value]) { self.values = values }

    /// The value of the column at `column`.
    package subscript(column: Int) -> Value {
        get { values[column] }
        set { values[column] = newValue }
    }
}

extension Row {
    @usableFromInline static let valuesOffset = MemoryLayout<Row>.offset(of: \Row.values)!

    /// Calls `body` with the values of the row stored at `row`, read in place (a scan's inner
    /// loop: the values array is neither copied nor retained).
    @inlinable
    package static func withValues<R>(at row: UnsafePointer<Row>, _ body: (UnsafeBufferPointer<Value>) throws -> R) rethrows -> R {
        try (UnsafeRawPointer(row) + valuesOffset).assumingMemoryBound(to: [Value].self).pointee.withUnsafeBufferPointer(body)
    }
}
