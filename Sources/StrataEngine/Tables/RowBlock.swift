import CStrataPrefetch

/// The rows of one leaf of a table, stored column by column, as Realm Core stores the objects of
/// a cluster: each column's values of every row side by side, integers and doubles as plain
/// 8-byte numbers, strings as Swift strings, anything else as ``Value``s.
///
/// A leaf read from its page gets a block, and so does each leaf of rows a checkpoint writes,
/// once the checkpoint is durable. A row of a block is a ``Row`` holding the block and its
/// position in it. Reading one column of the block's rows in turn reads adjacent memory (a scan
/// tests 64 integers in 8 cache lines where rows of their own are 64 separate heap arrays), and a
/// packed row takes less memory than a row of its own (no array header per row, no 24-byte
/// `Value` per number): a million rows of the scale series' model take about a quarter less once
/// read.
///
/// Rows a transaction writes stay rows of their own until the next checkpoint, until a query of a
/// published snapshot scans their leaf (``SortedTree/forEachLeaf(packingRows:_:)``), or, for
/// objects created in key order, until their leaf is full and the next object starts a new one
/// (see `splitLeaf(insertedAt:)`; the transaction's instructions are encoded as they are recorded
/// and hold no rows).
///
/// A block never changes once made: changing a row of it gives that row its own values again
/// (``Row/subscript(_:)``), and the block lives as long as any of its rows does.
///
/// Which kind each column takes is decided by the values, not the schema: a column whose values
/// in these rows are all integers or nulls is stored as integers, and so on; so a mixed column
/// holding only integers here packs as well, and reading a row gives back exactly the values it
/// was made from.
public final class RowBlock: ManagedBuffer<RowBlockHeader, RowBlockColumn> {
    // Public only for the `@inlinable` reads, as ``Row`` is.
    // Never changed once made, so it can be read from any thread (``Row``, which holds it, is
    // `Sendable` on that ground); the values it holds are destroyed in `deinit`, when no row
    // refers to the block any more.
    //
    // One allocation: the object's header, the column descriptors, then every column's values,
    // so that a scan's reads of a block follow one another in memory.

    /// The most rows a block holds: the bits of a null mask (and a leaf of rows holds 64).
    package static let capacity = 64

    /// The number of rows.
    package var count: Int { header.count }
    /// The number of columns.
    package var columnCount: Int { header.columnCount }

    /// Packs `count` rows of `width` values each, given one after the other in `values` (a leaf
    /// read from its page), moving them out of `values` (which is left uninitialized); nil,
    /// leaving `values` as they are, when there are no rows or more than ``capacity``.
    package static func make(count: Int, width: Int, moving values: UnsafeMutableBufferPointer<Value>) -> RowBlock? {
        guard count > 0, count <= capacity, values.count == count * width, let base = values.baseAddress else { return nil }
        let kinds = (0..<width).map { column in kind(count: count) { base + ($0 &* width &+ column) } }
        let dataBytes = kinds.reduce(0) { $0 + stride(of: $1) * count }
        let descriptorStride = MemoryLayout<RowBlockColumn>.stride
        let capacity = width + (dataBytes + descriptorStride - 1) / descriptorStride
        let block = unsafeDowncast(create(minimumCapacity: Swift.max(capacity, 1)) { _ in
            RowBlockHeader(count: count, columnCount: width)
        }, to: RowBlock.self)
        block.withUnsafeMutablePointerToElements { columns in
            var start = UnsafeMutableRawPointer(columns + width)
            for (column, kind) in kinds.enumerated() {
                let nulls = fill(start, kind: kind, count: count) { (base + ($0 &* width &+ column)).move() }
                (columns + column).initialize(to: RowBlockColumn(kind: kind, nulls: nulls, start: start))
                start += stride(of: kind) * count
            }
        }
        return block
    }

    /// Stores the `count` values `take` gives up at `start` as `kind`; returns their null mask.
    @inline(__always)
    private static func fill(_ start: UnsafeMutableRawPointer, kind: RowBlockColumn.Kind, count: Int,
                             _ take: (Int) -> Value) -> UInt64 {
        var nulls: UInt64 = 0
        for position in 0..<count {
            let value = take(position)
            if case .null = value, kind != .value { nulls |= 1 << UInt64(position) }
            switch (kind, value) {
            case (.int, .int(let number)): start.storeBytes(of: number, toByteOffset: position * 8, as: Int64.self)
            case (.int, _): start.storeBytes(of: 0, toByteOffset: position * 8, as: Int64.self)
            case (.double, .double(let number)): start.storeBytes(of: number, toByteOffset: position * 8, as: Double.self)
            case (.double, _): start.storeBytes(of: 0, toByteOffset: position * 8, as: Double.self)
            case (.string, .string(let string)):
                (start + position * MemoryLayout<String>.stride).initializeMemory(as: String.self, to: string)
            case (.string, _): (start + position * MemoryLayout<String>.stride).initializeMemory(as: String.self, to: "")
            case (.value, _): (start + position * MemoryLayout<Value>.stride).initializeMemory(as: Value.self, to: value)
            }
        }
        return nulls
    }

    deinit {
        withUnsafeMutablePointers { header, columns in
            let count = header.pointee.count
            for column in 0..<header.pointee.columnCount {
                switch columns[column].kind {
                case .string: columns[column].start.assumingMemoryBound(to: String.self).deinitialize(count: count)
                case .value: columns[column].start.assumingMemoryBound(to: Value.self).deinitialize(count: count)
                case .int, .double: break
                }
            }
            columns.deinitialize(count: header.pointee.columnCount)
        }
    }

    /// The storage kind for the `count` values at `value(position)`, read in place: the
    /// narrowest that holds them all.
    @inline(__always)
    private static func kind(count: Int, _ value: (Int) -> UnsafeMutablePointer<Value>) -> RowBlockColumn.Kind {
        var kind: RowBlockColumn.Kind?
        for position in 0..<count {
            let found: RowBlockColumn.Kind
            switch value(position).pointee {
            case .null: continue
            case .int: found = .int
            case .double: found = .double
            case .string: found = .string
            default: return .value
            }
            if let kind, kind != found { return .value }
            kind = found
        }
        return kind ?? .int
    }

    private static func stride(of kind: RowBlockColumn.Kind) -> Int {
        switch kind {
        case .int, .double: 8
        case .string: MemoryLayout<String>.stride
        case .value: MemoryLayout<Value>.stride
        }
    }

    /// The descriptor of `column`.
    @inlinable @inline(__always)
    func descriptor(_ column: Int) -> RowBlockColumn {
        withUnsafeMutablePointerToElements { $0[column] }
    }

    /// The value of `column` in the row at `position`.
    @inlinable @inline(__always)
    public func value(column: Int, position: Int) -> Value {
        let column = descriptor(column)
        if column.kind != .value && column.nulls & (1 &<< UInt64(position)) != 0 { return .null }
        switch column.kind {
        case .int: return .int(column.start.load(fromByteOffset: position &* 8, as: Int64.self))
        case .double: return .double(column.start.load(fromByteOffset: position &* 8, as: Double.self))
        case .string: return .string(column.start.assumingMemoryBound(to: String.self)[position])
        case .value: return column.start.assumingMemoryBound(to: Value.self)[position]
        }
    }

    /// The integer in `column` of the row at `position`, or nil when the column does not store
    /// integers here or the row's is null (read ``value(column:position:)`` then).
    @inlinable @inline(__always)
    public func int(column: Int, position: Int) -> Int64? {
        let column = descriptor(column)
        guard column.kind == .int, column.nulls & (1 &<< UInt64(position)) == 0 else { return nil }
        return column.start.load(fromByteOffset: position &* 8, as: Int64.self)
    }

    /// The string in `column` of the row at `position`, in place, or nil when the column does
    /// not store strings here or the row's is null.
    @inlinable @inline(__always)
    public func string(column: Int, position: Int) -> UnsafePointer<String>? {
        let column = descriptor(column)
        guard column.kind == .string, column.nulls & (1 &<< UInt64(position)) == 0 else { return nil }
        return UnsafePointer(column.start.assumingMemoryBound(to: String.self) + position)
    }

    /// The numbers of `column`, one per row (0 where the row is null: see ``nulls(column:)``),
    /// when the column stores integers here; nil otherwise.
    @inlinable @inline(__always)
    public func ints(column: Int) -> UnsafePointer<Int64>? {
        let column = descriptor(column)
        return column.kind == .int ? UnsafePointer(column.start.assumingMemoryBound(to: Int64.self)) : nil
    }

    /// The strings of `column`, one per row (empty where the row is null), when the column stores
    /// strings here; nil otherwise.
    @inlinable @inline(__always)
    public func strings(column: Int) -> UnsafePointer<String>? {
        let column = descriptor(column)
        return column.kind == .string ? UnsafePointer(column.start.assumingMemoryBound(to: String.self)) : nil
    }

    /// The rows of `column` that are null, a bit per position, when the column stores numbers or
    /// strings here (0 otherwise: a column of values holds its nulls as values).
    @inlinable @inline(__always)
    public func nulls(column: Int) -> UInt64 { descriptor(column).nulls }

    /// Starts loading the cache line of each column's value of the row at `position` (see
    /// ``Row/prefetchValues(at:)``).
    @inlinable @inline(__always)
    func prefetchValues(at position: Int) {
        withUnsafeMutablePointers { header, columns in
            for column in 0..<header.pointee.columnCount {
                let descriptor = columns[column]
                let stride = switch descriptor.kind {
                case .int, .double: 8
                case .string: MemoryLayout<String>.stride
                case .value: MemoryLayout<Value>.stride
                }
                strata_prefetch(descriptor.start + position &* stride)
            }
        }
    }

    /// Every value of the row at `position`, in column order.
    package func values(at position: Int) -> [Value] {
        (0..<columnCount).map { value(column: $0, position: position) }
    }
}

/// The sizes of a ``RowBlock``.
public struct RowBlockHeader {
    // Public only for the `@inlinable` reads, as ``Row`` is.
    @usableFromInline let count: Int
    @usableFromInline let columnCount: Int
}

/// Where one column of a ``RowBlock`` keeps its values and how it stores them.
public struct RowBlockColumn {
    // Public only for the `@inlinable` reads, as ``Row`` is.

    /// How one column's values are stored.
    @usableFromInline enum Kind: UInt8 {
        /// `Int64`s; a row whose bit is set in the column's null mask is `.null`.
        case int
        /// `Double`s, with a null mask.
        case double
        /// `String`s, with a null mask (a null row holds an empty string).
        case string
        /// `Value`s, anything at all.
        case value
    }

    @usableFromInline var kind: Kind
    /// Bit `i` set: row `i` is null (numbers and strings only).
    @usableFromInline var nulls: UInt64
    /// The column's first value, inside the block.
    @usableFromInline var start: UnsafeMutableRawPointer
}
