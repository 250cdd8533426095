import StrataStorage

/// How the entries of one kind of ``SortedTree`` are written into tree pages and read back.
protocol TreeEntryCoding: SendableMetatype {
    /// The tree's key.
    associatedtype Key: Comparable & Sendable
    /// The tree's value.
    associatedtype Value: Sendable

    /// Appends `key`.
    static func write(_ key: Key, to writer: inout ByteWriter)
    /// Appends `value`.
    static func write(value: Value, to writer: inout ByteWriter)
    /// Reads a key written by ``write(_:to:)``.
    static func readKey(from reader: inout ByteReader) throws -> Key
    /// Reads a value written by ``write(value:to:)``.
    static func readValue(from reader: inout ByteReader) throws -> Value
    /// Reads the `count` entries of a leaf, each written as a key then a value: the keys in the
    /// order read (the caller checks it) and the values.
    static func readLeafEntries(_ count: Int, from reader: inout ByteReader) throws -> (keys: [Key], values: [Value])

    /// How `new` differs from `old`, both stored under one key: as a checkpoint's leaf delta
    /// records it (see ``LeafDelta``). Values are compared as they are stored (bit for bit),
    /// never by a looser equality.
    static func difference(from old: Value, to new: Value) -> EntryDifference
    /// Appends the parts `parts` (ascending, from ``difference(from:to:)``) of `value`.
    static func writeParts(_ parts: [Int], of value: Value, to writer: inout ByteWriter)
    /// Reads parts written by ``writeParts(_:of:to:)``: their indices, and `old` with them
    /// replaced (nil when `old` is nil: the parts are only read past).
    static func readParts(from reader: inout ByteReader, applyingTo old: Value?) throws -> (parts: [Int], value: Value?)
}

/// How a tree entry's value changed (see ``TreeEntryCoding/difference(from:to:)``).
enum EntryDifference: Equatable {
    /// It did not.
    case none
    /// In these parts only (a row's columns, ascending), fewer than all of them.
    case parts([Int])
    /// As a whole.
    case whole
}

extension TreeEntryCoding {
    /// Entry by entry, each value read by ``readValue(from:)``.
    static func readLeafEntries(_ count: Int, from reader: inout ByteReader) throws -> (keys: [Key], values: [Value]) {
        var keys: [Key] = [], values: [Value] = []
        keys.reserveCapacity(count + 1)
        values.reserveCapacity(count + 1)
        for _ in 0..<count {
            keys.append(try readKey(from: &reader))
            values.append(try readValue(from: &reader))
        }
        return (keys, values)
    }
}

extension TreeEntryCoding {
    /// A value that changes changes as a whole.
    static func writeParts(_ parts: [Int], of value: Value, to writer: inout ByteWriter) {
        preconditionFailure("TreeEntryCoding: parts written of a value that changes as a whole")
    }

    static func readParts(from reader: inout ByteReader, applyingTo old: Value?) throws -> (parts: [Int], value: Value?) {
        throw reader.corrupt("a change of part of a value in a tree whose values change as a whole")
    }
}

/// The rows of a table: object key (signed varint) → the row's values (a count, then each value
/// in the engine's value encoding).
enum RowEntryCoding: TreeEntryCoding {
    static func write(_ key: ObjectKey, to writer: inout ByteWriter) { writer.writeSignedVarint(key.rawValue) }

    static func write(value row: Row, to writer: inout ByteWriter) {
        let count = row.count
        writer.writeCount(count)
        for column in 0..<count { writer.write(row[column]) }
    }

    static func readKey(from reader: inout ByteReader) throws -> ObjectKey { ObjectKey(try reader.readSignedVarint()) }

    /// The columns whose values are not stored identically (a row of another width, or changed
    /// in every column, changed as a whole). A row still in the block it was read or packed in
    /// is unchanged without comparing.
    static func difference(from old: Row, to new: Row) -> EntryDifference {
        if let block = old.block, block === new.block, old.position == new.position { return .none }
        let count = old.count
        guard new.count == count else { return .whole }
        var parts: [Int] = []
        for column in 0..<count where !old[column].isStoredIdentically(to: new[column]) { parts.append(column) }
        return parts.isEmpty ? .none : parts.count == count ? .whole : .parts(parts)
    }

    /// The changed columns: a count, then each column's index and value.
    static func writeParts(_ parts: [Int], of row: Row, to writer: inout ByteWriter) {
        writer.writeCount(parts.count)
        for column in parts {
            writer.writeCount(column)
            writer.write(row[column])
        }
    }

    static func readParts(from reader: inout ByteReader, applyingTo old: Row?) throws -> (parts: [Int], value: Row?) {
        let count = try reader.readCount(minimumElementSize: 2)
        var parts: [Int] = []
        parts.reserveCapacity(count)
        var row = old
        for _ in 0..<count {
            guard let column = Int(exactly: try reader.readVarint()), column < Int(Int32.max),
                  parts.last.map({ $0 < column }) ?? true else {
                throw reader.corrupt("a row's changed columns are out of order or out of range")
            }
            let value = try reader.readValue()
            if row != nil {
                guard column < row!.count else { throw reader.corrupt("a changed column past the row's last") }
                row![column] = value
            }
            parts.append(column)
        }
        guard count > 0 else { throw reader.corrupt("a row changed in no column") }
        return (parts, row)
    }

    static func readValue(from reader: inout ByteReader) throws -> Row {
        let count = try reader.readCount(minimumElementSize: 1)
        var values: [StrataEngine.Value] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try reader.readValue()) }
        return Row(values)
    }

    /// A leaf's rows packed into one ``RowBlock``: every value read into one buffer first, then
    /// moved into its column (rows of different widths, which the tree's check then refuses,
    /// are read as rows of their own).
    static func readLeafEntries(_ count: Int, from reader: inout ByteReader) throws -> (keys: [ObjectKey], values: [Row]) {
        var keys: [ObjectKey] = [], widths: [Int] = []
        keys.reserveCapacity(count + 1)
        widths.reserveCapacity(count)
        // The values, read into a buffer they are moved out of (no copy of each string).
        var buffer = UnsafeMutableBufferPointer<StrataEngine.Value>(start: nil, count: 0)
        var initialized = 0
        defer {
            buffer.baseAddress?.deinitialize(count: initialized)
            buffer.deallocate()
        }
        for _ in 0..<count {
            keys.append(try readKey(from: &reader))
            let width = try reader.readCount(minimumElementSize: 1)
            if initialized + width > buffer.count {
                // Room for every row as wide as this one, but never for more values than the bytes
                // left could hold (each takes at least one): a damaged width allocates no more
                // than the page it came from.
                let room = Swift.max(Swift.min(width * count, initialized + reader.remaining), initialized + width)
                let grown = UnsafeMutableBufferPointer<StrataEngine.Value>.allocate(capacity: room)
                if let old = buffer.baseAddress { grown.baseAddress!.moveInitialize(from: old, count: initialized) }
                buffer.deallocate()
                buffer = grown
            }
            widths.append(width)
            for _ in 0..<width {
                (buffer.baseAddress! + initialized).initialize(to: try reader.readValue())
                initialized += 1
            }
        }
        var rows: [Row] = []
        rows.reserveCapacity(count + 1)
        if let width = widths.first, widths.allSatisfy({ $0 == width }),
           let block = RowBlock.make(count: count, width: width, moving: UnsafeMutableBufferPointer(rebasing: buffer[..<initialized])) {
            initialized = 0
            for position in 0..<count { rows.append(Row(block: block, position: position)) }
        } else {
            var start = 0
            for width in widths {
                rows.append(Row(Array(buffer[start..<(start + width)])))
                start += width
            }
        }
        return (keys, rows)
    }
}

/// A primary-key index: the key's value (the engine's value encoding) → object key.
enum PrimaryKeyEntryCoding: TreeEntryCoding {
    typealias Key = StrataEngine.Value
    typealias Value = ObjectKey

    static func write(_ key: Key, to writer: inout ByteWriter) { writer.write(key) }
    static func write(value: ObjectKey, to writer: inout ByteWriter) { writer.writeSignedVarint(value.rawValue) }
    static func readKey(from reader: inout ByteReader) throws -> Key { try reader.readValue() }
    static func readValue(from reader: inout ByteReader) throws -> ObjectKey { ObjectKey(try reader.readSignedVarint()) }
    static func difference(from old: ObjectKey, to new: ObjectKey) -> EntryDifference { old == new ? .none : .whole }
}

/// A primary-key index of a required integer column, keyed by the integer: each entry written as
/// ``PrimaryKeyEntryCoding`` writes it (the key as an `.int` value), so either reads the other's
/// pages.
enum IntegerPrimaryKeyEntryCoding: TreeEntryCoding {
    typealias Key = Int64
    typealias Value = ObjectKey

    static func write(_ key: Int64, to writer: inout ByteWriter) { writer.write(StrataEngine.Value.int(key)) }
    static func write(value: ObjectKey, to writer: inout ByteWriter) { writer.writeSignedVarint(value.rawValue) }

    static func readKey(from reader: inout ByteReader) throws -> Int64 {
        guard case .int(let key) = try reader.readValue() else {
            throw reader.corrupt("a primary key of a required integer column is not an integer")
        }
        return key
    }

    static func readValue(from reader: inout ByteReader) throws -> ObjectKey { ObjectKey(try reader.readSignedVarint()) }
    static func difference(from old: ObjectKey, to new: ObjectKey) -> EntryDifference { old == new ? .none : .whole }
}

/// A secondary index: (value, object key) entries, with nothing stored beside them.
enum IndexEntryCoding: TreeEntryCoding {
    typealias Key = IndexEntry
    typealias Value = Void

    static func write(_ key: IndexEntry, to writer: inout ByteWriter) {
        writer.write(key.value)
        writer.writeSignedVarint(key.object.rawValue)
    }

    static func write(value: Void, to writer: inout ByteWriter) {}

    static func readKey(from reader: inout ByteReader) throws -> IndexEntry {
        IndexEntry(value: try reader.readValue(), object: ObjectKey(try reader.readSignedVarint()))
    }

    static func readValue(from reader: inout ByteReader) throws {}
    static func difference(from old: Void, to new: Void) -> EntryDifference { .none }
}

/// Backlinks: object key → the links pointing at it, each as (table key, column, object key,
/// count), in ascending order.
enum BacklinkEntryCoding: TreeEntryCoding {
    typealias Key = ObjectKey
    typealias Value = BacklinkCounts

    static func write(_ key: ObjectKey, to writer: inout ByteWriter) { writer.writeSignedVarint(key.rawValue) }

    static func write(value: BacklinkCounts, to writer: inout ByteWriter) {
        let origins = value.counts.sorted { ($0.key.table, $0.key.column, $0.key.object) < ($1.key.table, $1.key.column, $1.key.object) }
        writer.writeCount(origins.count)
        for (origin, count) in origins {
            writer.writeVarint(UInt64(origin.table.rawValue))
            writer.writeCount(origin.column)
            writer.writeSignedVarint(origin.object.rawValue)
            writer.writeCount(count)
        }
    }

    static func readKey(from reader: inout ByteReader) throws -> ObjectKey { ObjectKey(try reader.readSignedVarint()) }

    static func readValue(from reader: inout ByteReader) throws -> BacklinkCounts {
        var counts = BacklinkCounts()
        for _ in 0..<(try reader.readCount(minimumElementSize: 4)) {
            let table = try reader.readTableKey()
            guard let column = Int(exactly: try reader.readVarint()), column < Int(Int32.max) else {
                throw reader.corrupt("a backlink's column is out of range")
            }
            let origin = Backlink(table: table, column: column, object: ObjectKey(try reader.readSignedVarint()))
            guard let count = Int(exactly: try reader.readVarint()), count > 0,
                  counts.counts.updateValue(count, forKey: origin) == nil else {
                throw reader.corrupt("a backlink is listed twice or with a count of 0")
            }
        }
        guard !counts.isEmpty else { throw reader.corrupt("an object with no backlinks in the backlinks tree") }
        return counts
    }

    static func difference(from old: BacklinkCounts, to new: BacklinkCounts) -> EntryDifference {
        old == new ? .none : .whole
    }
}
