import StrataStorage

extension ByteWriter {
    mutating func write(_ column: ColumnSchema) {
        writeString(column.name)
        write(column.type.rawValue)
        write(column.collection.rawValue)
        write(UInt8((column.isOptional ? 1 : 0) | (column.isIndexed ? 2 : 0) | (column.linkTarget != nil ? 4 : 0)))
        if let target = column.linkTarget { writeString(target) }
    }

    mutating func write(_ schema: TableSchema) {
        writeString(schema.name)
        write(UInt8((schema.isEmbedded ? 1 : 0) | (schema.primaryKey != nil ? 2 : 0)))
        if let primaryKey = schema.primaryKey { writeString(primaryKey) }
        writeCount(schema.columns.count)
        for column in schema.columns { write(column) }
    }
}

extension ByteReader {
    mutating func readColumnSchema() throws -> ColumnSchema {
        let name = try readString()
        let rawType = try readByte()
        guard let type = ValueType(rawValue: rawType) else { throw corrupt("unknown column type \(rawType)") }
        let rawCollection = try readByte()
        guard let collection = CollectionKind(rawValue: rawCollection) else {
            throw corrupt("unknown collection kind \(rawCollection)")
        }
        let flags = try readByte()
        let target = flags & 4 != 0 ? try readString() : nil
        return ColumnSchema(name, type, collection: collection, isOptional: flags & 1 != 0,
                            linkTarget: target, isIndexed: flags & 2 != 0)
    }

    mutating func readTableSchema() throws -> TableSchema {
        let name = try readString()
        let flags = try readByte()
        let primaryKey = flags & 2 != 0 ? try readString() : nil
        let count = try readCount(minimumElementSize: 4)
        var columns: [ColumnSchema] = []
        for _ in 0..<count { columns.append(try readColumnSchema()) }
        return TableSchema(name: name, columns: columns, primaryKey: primaryKey, isEmbedded: flags & 1 != 0)
    }
}
