import CStrataPrefetch

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

    /// How many rows ahead of the one it tests a scan prefetches (see ``prefetch(at:)``).
    /// Six rows of a hundred-odd bytes each: far enough to cover a miss's latency at a test's
    /// cost of some 10 ns, near enough to stay inside one leaf most of the time. Measured on W4(a)'s
    /// count (about a fifth faster than without) and a `Results` loop (a tenth).
    @inlinable static var prefetchDistance: Int { 6 }

    /// Starts loading the values of the row stored at `row` into the cache (the first three
    /// cache lines of its array's storage: the header and the first values), without waiting
    /// and without retaining it: a scan calls it for a row a few positions ahead of the one it
    /// tests, so that each row's cache misses overlap the tests of the rows before it instead
    /// of stalling the scan one after another.
    @inlinable @inline(__always)
    package static func prefetch(at row: UnsafePointer<Row>) {
        let storage = UnsafeRawPointer(row).load(as: UnsafeRawPointer.self)
        strata_prefetch(storage)
        strata_prefetch(storage + 64)
        strata_prefetch(storage + 128)
    }

    /// Calls `body` with each index of `rows` in order, each time prefetching the row
    /// ``prefetchDistance`` positions further on (see ``prefetch(at:)``): a scan's loop over the
    /// rows of a leaf.
    @inlinable @inline(__always)
    package static func forEachIndex(prefetching rows: UnsafeBufferPointer<Row>, _ body: (Int) throws -> Void) rethrows {
        guard let base = rows.baseAddress else { return }
        let count = rows.count
        for index in 0..<count {
            if index &+ prefetchDistance < count { prefetch(at: base + (index &+ prefetchDistance)) }
            try body(index)
        }
    }
}
