import StrataStorage
import StrataSupport

extension Snapshot {
    /// The checkpoint encoding of the whole snapshot: schema, key counters and every row.
    /// Indexes and backlinks are derived data and are rebuilt when decoding.
    ///
    /// - Complexity: O(total size).
    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 1 << 16)
        writer.writeVarint(version)
        writer.writeVarint(UInt64(nextTableKey))
        let tables = allTables
        writer.writeCount(tables.count)
        for table in tables {
            writer.writeVarint(UInt64(table.key.rawValue))
            writer.write(table.schema)
            writer.writeSignedVarint(table.nextObjectKey)
        }
        for table in tables {
            writer.writeCount(table.count)
            table.forEachObject { key, row in
                writer.writeSignedVarint(key.rawValue)
                for value in row.values { writer.write(value) }
            }
        }
        return writer.bytes
    }

    /// Decodes a snapshot from its checkpoint encoding.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming `path` when the bytes are malformed.
    static func decode(_ bytes: [UInt8], path: String, offset: UInt64) throws -> Snapshot {
        try bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: path, originOffset: offset)
            var snapshot = Snapshot.empty
            snapshot.version = try reader.readVarint()
            guard let nextTable = UInt32(exactly: try reader.readVarint()) else { throw reader.corrupt("table counter") }
            let tableCount = try reader.readCount(minimumElementSize: 3)
            var order: [(TableKey, Int64)] = []
            for _ in 0..<tableCount {
                let key = try reader.readTableKey()
                let schema = try reader.readTableSchema()
                try snapshot.applyDecoded(.createTable(key, schema), reader: reader)
                order.append((key, try reader.readSignedVarint()))
            }
            for (key, nextObjectKey) in order {
                let columnCount = snapshot.tables[key]!.schema.columns.count
                let rowCount = try reader.readCount(minimumElementSize: 1 + columnCount)
                for _ in 0..<rowCount {
                    let object = ObjectKey(try reader.readSignedVarint())
                    var values: [Value] = []
                    values.reserveCapacity(columnCount)
                    for _ in 0..<columnCount { values.append(try reader.readValue()) }
                    try snapshot.applyDecoded(.insertObject(key, object, values), reader: reader)
                }
                snapshot.tables[key]!.nextObjectKey = nextObjectKey
            }
            snapshot.nextTableKey = nextTable
            guard reader.isAtEnd else { throw reader.corrupt("\(reader.remaining) unexpected trailing bytes") }
            return snapshot
        }
    }

    private mutating func applyDecoded(_ instruction: Instruction, reader: borrowing ByteReader) throws {
        do {
            try apply(instruction)
        } catch let error as StrataError {
            throw reader.corrupt(error.message)
        }
    }
}
