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
    /// Where a native Swift array's storage object keeps its count and its first element: after
    /// the object header (two words), the count, then the capacity word. This is the layout of
    /// the standard library's contiguous array storage on 64-bit platforms; a test checks it
    /// against real arrays (`RowLayoutTests`).
    @usableFromInline static let arrayCountOffset = 16
    @usableFromInline static let arrayElementsOffset = 32

    /// Calls `body` with the values of the row stored at `row`, read in place (a scan's inner
    /// loop): the values are found through the array's storage object, so nothing is copied or
    /// retained (going through the array itself retains its storage for the call, because
    /// `body` could write to `row`). `body` must not change the row at `row`.
    @inlinable @inline(__always)
    package static func withValues<R>(at row: UnsafePointer<Row>, _ body: (UnsafeBufferPointer<Value>) throws -> R) rethrows -> R {
        // `Row` is exactly its `values` array, one reference to the array's storage object.
        let storage = UnsafeRawPointer(row).load(as: UnsafeRawPointer.self)
        let count = storage.load(fromByteOffset: arrayCountOffset, as: Int.self)
        let elements = (storage + arrayElementsOffset).assumingMemoryBound(to: Value.self)
        return try body(UnsafeBufferPointer(start: elements, count: count))
    }
}
