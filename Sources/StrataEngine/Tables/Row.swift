import CStrataPrefetch

/// The values of one object, one per column of its table's schema: either values of its own or
/// a position in a ``RowBlock`` (the rows of a leaf read from its page or written by a checkpoint,
/// packed column by column).
///
/// Reading a value works the same for both (``subscript(_:)``); changing one gives a packed row
/// values of its own first, copying only this row.
public struct Row: Hashable, @unchecked Sendable {
    // Sendable: `own` is a value, and a `RowBlock` is never changed once made (it is not
    // `Sendable` itself only because `ManagedBuffer`, which it extends, is not).
    // Public (the module is not a product, and `Strata` does not re-export it) only so that the
    // read paths marked `@inlinable` are inlined into the query and model layers: the compiler
    // does not inline `package` declarations across modules.
    // The layout is read in place by scans (`withValues(at:)`, `packedBlock(at:)`): `own` first, then
    // `block`, then `position` (`RowLayoutTests` checks it).

    /// The values, when the row is not packed (empty when it is).
    @usableFromInline var own: [Value]
    /// The block holding the row, when it is packed.
    @usableFromInline var block: RowBlock?
    /// The row's position in `block`.
    @usableFromInline var position: Int

    /// Creates a row from its values.
    package init(_ values: [Value]) {
        own = values
        block = nil
        position = 0
    }

    /// The row at `position` of `block`.
    init(block: RowBlock, position: Int) {
        own = []
        self.block = block
        self.position = position
    }

    /// The number of values.
    package var count: Int { block?.columnCount ?? own.count }

    /// Whether the row is stored in a ``RowBlock``.
    package var isPacked: Bool { block != nil }

    /// The values in column order (a packed row's are gathered from its block).
    package var values: [Value] {
        get {
            guard let block else { return own }
            return block.values(at: position)
        }
        set {
            own = newValue
            block = nil
            position = 0
        }
        _modify {
            unpack()
            yield &own
        }
    }

    /// The value of the column at `column`.
    public package(set) subscript(column: Int) -> Value {
        @inlinable @inline(__always) get {
            if let block { return block.value(column: column, position: position) }
            return own[column]
        }
        set {
            unpack()
            own[column] = newValue
        }
        _modify {
            unpack()
            yield &own[column]
        }
    }

    /// Gives a packed row values of its own.
    @inline(__always)
    private mutating func unpack() {
        guard let block else { return }
        own = block.values(at: position)
        self.block = nil
        position = 0
    }

    /// Whether the two rows hold the same values, packed or not (``Value``'s equality, numbers
    /// with a fraction compared by their bits).
    public static func == (lhs: Row, rhs: Row) -> Bool {
        // The same storage is equal whatever it holds (a row holding NaN equals itself, as two
        // copies of one array compare equal), which tells an unchanged row from a changed one.
        if lhs.block == nil && rhs.block == nil,
           lhs.own.withUnsafeBufferPointer({ $0.baseAddress }) == rhs.own.withUnsafeBufferPointer({ $0.baseAddress }),
           lhs.own.count == rhs.own.count { return true }
        if let left = lhs.block, left === rhs.block, lhs.position == rhs.position { return true }
        let count = lhs.count
        guard count == rhs.count else { return false }
        // Values compare as stored (a NaN read from another block is the same NaN, so an unchanged
        // row packed anew by a checkpoint still equals itself).
        for column in 0..<count where !lhs[column].isStoredIdentically(to: rhs[column]) { return false }
        return true
    }

    /// Hashes the values, so that a packed row and a row of its own with equal values hash alike.
    public func hash(into hasher: inout Hasher) {
        let count = self.count
        hasher.combine(count)
        for column in 0..<count { hasher.combine(self[column]) }
    }

    /// `rows` (a leaf's) as packed rows of one new block, packed or not before, or nil when they
    /// are already exactly one block's rows in order, there are none or more than
    /// ``RowBlock/capacity``, or their numbers of values differ.
    package static func repacked(_ rows: [Row]) -> [Row]? {
        guard let first = rows.first, rows.count <= RowBlock.capacity else { return nil }
        if let block = first.block, block.count == rows.count,
           rows.enumerated().allSatisfy({ $0.element.block === block && $0.element.position == $0.offset }) {
            return nil
        }
        let width = first.count
        guard rows.allSatisfy({ $0.count == width }) else { return nil }
        var values: [Value] = []
        values.reserveCapacity(rows.count * width)
        for row in rows {
            if row.block == nil { values.append(contentsOf: row.own) } else { values.append(contentsOf: row.values) }
        }
        return values.withUnsafeMutableBufferPointer { values -> [Row]? in
            guard let block = RowBlock.make(count: rows.count, width: width, moving: values) else { return nil }
            values.initialize(repeating: .null)
            return (0..<rows.count).map { Row(block: block, position: $0) }
        }
    }
}

extension Row {
    /// Where a native Swift array's storage object keeps its count and its first element: after
    /// the object header (two words), the count, then the capacity word. This is the layout of
    /// the standard library's contiguous array storage on 64-bit platforms; a test checks it
    /// against real arrays (`RowLayoutTests`).
    @usableFromInline static let arrayCountOffset = 16
    @usableFromInline static let arrayElementsOffset = 32

    /// Where a row keeps its block and its position in it (see ``Row``'s fields).
    @usableFromInline static let blockOffset = 8
    @usableFromInline static let positionOffset = 16

    /// Calls `body` with the values of the row stored at `row`, read in place (a scan's inner
    /// loop), when it is a row of its own; returns nil without calling it for a packed row (read
    /// that through ``packedBlock(at:)``). The values are found through the array's storage
    /// object, so nothing is copied or retained (going through the array itself retains its
    /// storage for the call, because `body` could write to `row`). `body` must not change the
    /// row at `row`.
    @inlinable @inline(__always)
    public static func withValues<R>(at row: UnsafePointer<Row>, _ body: (UnsafeBufferPointer<Value>) throws -> R) rethrows -> R? {
        let raw = UnsafeRawPointer(row)
        guard raw.load(fromByteOffset: blockOffset, as: UnsafeRawPointer?.self) == nil else { return nil }
        let storage = raw.load(as: UnsafeRawPointer.self)
        let count = storage.load(fromByteOffset: arrayCountOffset, as: Int.self)
        let elements = (storage + arrayElementsOffset).assumingMemoryBound(to: Value.self)
        return try body(UnsafeBufferPointer(start: elements, count: count))
    }

    /// The block and position of the packed row stored at `row`, read in place and not retained
    /// (the row holds the block while it is not changed); nil for a row of its own.
    @inlinable @inline(__always)
    public static func packedBlock(at row: UnsafePointer<Row>) -> (block: Unmanaged<RowBlock>, position: Int)? {
        let raw = UnsafeRawPointer(row)
        guard let block = raw.load(fromByteOffset: blockOffset, as: UnsafeRawPointer?.self) else { return nil }
        return (Unmanaged.fromOpaque(block), raw.load(fromByteOffset: positionOffset, as: Int.self))
    }

    /// The value of `column` of the row stored at `row`, read in place: nothing but the value's
    /// own payload is retained (not the row's array or block), where copying the row out to
    /// read it would retain and release both.
    @inlinable @inline(__always)
    public static func value(at row: UnsafePointer<Row>, column: Int) -> Value {
        if let (block, position) = packedBlock(at: row) {
            return block._withUnsafeGuaranteedRef { $0.value(column: column, position: position) }
        }
        return withValues(at: row) { $0[column] }.unsafelyUnwrapped
    }

    /// A copy of the row stored at `row`, loaded as raw memory: `row` may point into an array of
    /// `Row?` (a row that is there has the same layout, `RowLayoutTests`), which a typed read
    /// through a `Row` pointer would access as a type it is not bound to.
    @inlinable @inline(__always)
    public static func copy(at row: UnsafePointer<Row>) -> Row {
        UnsafeRawPointer(row).load(as: Row.self)
    }

    /// How many rows ahead of the one it tests a scan prefetches (see ``prefetch(at:)``).
    /// Six rows of a hundred-odd bytes each: far enough to cover a miss's latency at a test's
    /// cost of some 10 ns, near enough to stay inside one leaf most of the time. Measured on W4(a)'s
    /// count (about a fifth faster than without) and a `Results` loop (a tenth).
    @inlinable public static var prefetchDistance: Int { 6 }

    /// Starts loading the values of the row stored at `row` into the cache (the first three
    /// cache lines of its array's storage: the header and the first values), without waiting
    /// and without retaining it: a scan calls it for a row a few positions ahead of the one it
    /// tests, so that each row's cache misses overlap the tests of the rows before it instead
    /// of stalling the scan one after another.
    @inlinable @inline(__always)
    public static func prefetch(at row: UnsafePointer<Row>) {
        let storage = UnsafeRawPointer(row).load(as: UnsafeRawPointer.self)
        strata_prefetch(storage)
        strata_prefetch(storage + 64)
        strata_prefetch(storage + 128)
    }

    /// Starts loading every value of the row stored at `row` into the cache, without waiting and
    /// without retaining it: for a packed row, the cache line of each of its block's columns
    /// that holds the row's value (a row's values lie in as many lines as it has columns); for a
    /// row of its own, as ``prefetch(at:)``. A loop over objects in another order than their
    /// leaves' (sorted results) calls it for an element a few positions ahead.
    @inlinable @inline(__always)
    public static func prefetchValues(at row: UnsafePointer<Row>) {
        guard let (block, position) = packedBlock(at: row) else { return prefetch(at: row) }
        block._withUnsafeGuaranteedRef { $0.prefetchValues(at: position) }
    }

    /// Calls `body` with each index of `rows` in order, each time prefetching the row
    /// ``prefetchDistance`` positions further on (see ``prefetch(at:)``): a scan's loop over the
    /// rows of a leaf.
    @inlinable @inline(__always)
    public static func forEachIndex(prefetching rows: UnsafeBufferPointer<Row>, _ body: (Int) throws -> Void) rethrows {
        guard let base = rows.baseAddress else { return }
        let count = rows.count
        for index in 0..<count {
            if index &+ prefetchDistance < count { prefetch(at: base + (index &+ prefetchDistance)) }
            try body(index)
        }
    }
}
