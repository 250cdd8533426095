import StrataStorage

/// How the entries of one kind of ``SortedTree`` are written into tree pages and read back.
protocol TreeEntryCoding {
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
}

/// The rows of a table: object key (signed varint) → the row's values (a count, then each value
/// in the engine's value encoding).
enum RowEntryCoding: TreeEntryCoding {
    static func write(_ key: ObjectKey, to writer: inout ByteWriter) { writer.writeSignedVarint(key.rawValue) }

    static func write(value row: Row, to writer: inout ByteWriter) {
        writer.writeCount(row.values.count)
        for value in row.values { writer.write(value) }
    }

    static func readKey(from reader: inout ByteReader) throws -> ObjectKey { ObjectKey(try reader.readSignedVarint()) }

    static func readValue(from reader: inout ByteReader) throws -> Row {
        let count = try reader.readCount(minimumElementSize: 1)
        var values: [StrataEngine.Value] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try reader.readValue()) }
        return Row(values)
    }
}
