import StrataStorage
import StrataSupport

/// The top of a paged checkpoint: the header's roots blob and the catalog it points at.
///
/// Roots (the page file header's opaque blob, in the clear, so it holds no user data):
/// ```
/// u8     roots format (1)
/// varint catalog first page, varint catalog page count
/// varint free list first page, varint free list page count (0, 0: no free pages)
/// ```
/// Catalog (a ``PageKind/catalog`` image; schema names are user data, so it lives in pages):
/// ```
/// varint snapshot version, varint next table key, varint table count
/// per table: varint table key, table schema, signed varint next object key,
///            varint rows root first page, varint rows root page count, varint row count
/// ```
struct StoreCatalog: Sendable {
    /// One table's entry.
    struct TableEntry: Sendable {
        var key: TableKey
        var schema: TableSchema
        var nextObjectKey: Int64
        var rows: PagedTreeRoot
    }

    /// Where the catalog and the free list are.
    struct Roots: Sendable, Equatable {
        static let format: UInt8 = 1
        var catalog: PageExtent
        var freeList: PageExtent?

        func encoded() -> [UInt8] {
            var writer = ByteWriter(capacity: 32)
            writer.write(Self.format)
            writer.writeVarint(catalog.first)
            writer.writeVarint(UInt64(catalog.count))
            writer.writeVarint(freeList?.first ?? 0)
            writer.writeVarint(UInt64(freeList?.count ?? 0))
            return writer.bytes
        }

        static func decode(_ bytes: [UInt8], path: String) throws -> Roots {
            try bytes.withUnsafeBytes { raw in
                var reader = ByteReader(raw, origin: path)
                func corrupt(_ why: String) -> StrataError {
                    StrataError(.corruptFile, "the header of \(path) is damaged: its roots \(why)", path: path, offset: 0)
                }
                guard try reader.readByte() == format else { throw corrupt("are in an unknown format") }
                let catalog = PageExtent(first: try reader.readVarint(), count: try readCount(&reader, corrupt))
                let freeFirst = try reader.readVarint()
                let freeCount = try readCount(&reader, corrupt)
                guard catalog.count >= 1, (freeFirst == 0) == (freeCount == 0), reader.isAtEnd else {
                    throw corrupt("are inconsistent")
                }
                return Roots(catalog: catalog, freeList: freeCount == 0 ? nil : PageExtent(first: freeFirst, count: freeCount))
            }
        }

        private static func readCount(_ reader: inout ByteReader, _ corrupt: (String) -> StrataError) throws -> UInt32 {
            guard let count = UInt32(exactly: try reader.readVarint()) else { throw corrupt("name too many pages") }
            return count
        }
    }

    var version: UInt64
    var nextTableKey: UInt32
    var tables: [TableEntry]

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 256)
        writer.writeVarint(version)
        writer.writeVarint(UInt64(nextTableKey))
        writer.writeCount(tables.count)
        for table in tables {
            writer.writeVarint(UInt64(table.key.rawValue))
            writer.write(table.schema)
            writer.writeSignedVarint(table.nextObjectKey)
            writer.writeVarint(table.rows.extent.first)
            writer.writeVarint(UInt64(table.rows.extent.count))
            writer.writeCount(table.rows.count)
        }
        return writer.bytes
    }

    static func decode(_ image: [UInt8], path: String, at extent: PageExtent, pageSize: Int) throws -> StoreCatalog {
        try image.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: path, originOffset: extent.first * UInt64(pageSize))
            let version = try reader.readVarint()
            guard let nextTableKey = UInt32(exactly: try reader.readVarint()) else { throw reader.corrupt("table counter") }
            let count = try reader.readCount(minimumElementSize: 6)
            var tables: [TableEntry] = []
            for _ in 0..<count {
                let key = try reader.readTableKey()
                let schema = try reader.readTableSchema()
                let nextObjectKey = try reader.readSignedVarint()
                let first = try reader.readVarint()
                guard let pages = UInt32(exactly: try reader.readVarint()), pages >= 1,
                      let rows = Int(exactly: try reader.readVarint()) else { throw reader.corrupt("a table's root") }
                tables.append(TableEntry(key: key, schema: schema, nextObjectKey: nextObjectKey,
                                         rows: PagedTreeRoot(extent: PageExtent(first: first, count: pages), count: rows)))
            }
            guard reader.isAtEnd else { throw reader.corrupt("trailing bytes after the catalog") }
            return StoreCatalog(version: version, nextTableKey: nextTableKey, tables: tables)
        }
    }
}
