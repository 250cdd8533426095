import StrataStorage
import StrataSupport

/// The top of a paged checkpoint: the header's roots blob and the catalog it points at.
///
/// Roots (the page file header's opaque blob, in the clear, so it holds no user data):
/// ```
/// u8     roots format (3; format 2, written before leaf deltas, ends after the free list)
/// varint catalog first page, varint catalog page count
/// varint free list first page, varint free list page count (0, 0: no free pages)
/// varint delta directory first page, varint its page count (0, 0: no leaf has a delta)
/// ```
/// Catalog (a ``PageKind/catalog`` image; schema names are user data, so it lives in pages):
/// ```
/// varint snapshot version, varint next table key, varint table count
/// per table: varint table key, table schema, signed varint next object key,
///            rows root, primary-key index root, backlinks root,
///            varint index count, per index: varint column, index root
/// root:      varint first page, varint page count, varint entry count
/// ```
/// Every tree is written whatever it holds (an empty tree is one empty leaf), so a table's
/// indexes and backlinks are read, never rebuilt.
struct StoreCatalog: Sendable {
    /// One table's entry.
    struct TableEntry: Sendable {
        var key: TableKey
        var schema: TableSchema
        var nextObjectKey: Int64
        var rows: PagedTreeRoot
        var primaryKeyIndex: PagedTreeRoot
        var backlinks: PagedTreeRoot
        /// Column → its secondary index's root, ascending by column.
        var secondaryIndexes: [(column: Int, root: PagedTreeRoot)]
    }

    /// Where the catalog and the free list are.
    struct Roots: Sendable, Equatable {
        static let format: UInt8 = 3
        var catalog: PageExtent
        var freeList: PageExtent?
        /// The delta directory (see ``DeltaDirectory``), when a leaf has a delta.
        var deltaDirectory: PageExtent?

        func encoded() -> [UInt8] {
            var writer = ByteWriter(capacity: 32)
            writer.write(Self.format)
            writer.writeVarint(catalog.first)
            writer.writeVarint(UInt64(catalog.count))
            for extent in [freeList, deltaDirectory] {
                writer.writeVarint(extent?.first ?? 0)
                writer.writeVarint(UInt64(extent?.count ?? 0))
            }
            return writer.bytes
        }

        static func decode(_ bytes: [UInt8], path: String) throws -> Roots {
            try bytes.withUnsafeBytes { raw in
                var reader = ByteReader(raw, origin: path)
                func corrupt(_ why: String) -> StrataError {
                    StrataError(.corruptFile, "the header of \(path) is damaged: its roots \(why)", path: path, offset: 0)
                }
                let version = try reader.readByte()
                guard version == 2 || version == format else { throw corrupt("are in an unknown format") }
                let catalog = PageExtent(first: try reader.readVarint(), count: try readCount(&reader, corrupt))
                func optionalExtent() throws -> PageExtent? {
                    let first = try reader.readVarint()
                    let count = try readCount(&reader, corrupt)
                    guard (first == 0) == (count == 0) else { throw corrupt("are inconsistent") }
                    return count == 0 ? nil : PageExtent(first: first, count: count)
                }
                let freeList = try optionalExtent()
                let deltaDirectory = version == 2 ? nil : try optionalExtent()
                guard catalog.count >= 1, reader.isAtEnd else { throw corrupt("are inconsistent") }
                return Roots(catalog: catalog, freeList: freeList, deltaDirectory: deltaDirectory)
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
            for root in [table.rows, table.primaryKeyIndex, table.backlinks] { Self.write(root, to: &writer) }
            writer.writeCount(table.secondaryIndexes.count)
            for (column, root) in table.secondaryIndexes {
                writer.writeCount(column)
                Self.write(root, to: &writer)
            }
        }
        return writer.bytes
    }

    private static func write(_ root: PagedTreeRoot, to writer: inout ByteWriter) {
        writer.writeVarint(root.extent.first)
        writer.writeVarint(UInt64(root.extent.count))
        writer.writeCount(root.count)
    }

    private static func readRoot(_ reader: inout ByteReader) throws -> PagedTreeRoot {
        let first = try reader.readVarint()
        guard let pages = UInt32(exactly: try reader.readVarint()), pages >= 1,
              let count = Int(exactly: try reader.readVarint()) else { throw reader.corrupt("a tree's root") }
        return PagedTreeRoot(extent: PageExtent(first: first, count: pages), count: count)
    }

    static func decode(_ image: [UInt8], path: String, at extent: PageExtent, pageSize: Int) throws -> StoreCatalog {
        try image.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: path, originOffset: extent.first * UInt64(pageSize))
            let version = try reader.readVarint()
            guard let nextTableKey = UInt32(exactly: try reader.readVarint()) else { throw reader.corrupt("table counter") }
            let count = try reader.readCount(minimumElementSize: 12)
            var tables: [TableEntry] = []
            for _ in 0..<count {
                let key = try reader.readTableKey()
                let schema = try reader.readTableSchema()
                let nextObjectKey = try reader.readSignedVarint()
                let rows = try readRoot(&reader)
                let primaryKeyIndex = try readRoot(&reader)
                let backlinks = try readRoot(&reader)
                var indexes: [(column: Int, root: PagedTreeRoot)] = []
                for _ in 0..<(try reader.readCount(minimumElementSize: 4)) {
                    guard let column = Int(exactly: try reader.readVarint()), column < schema.columns.count,
                          indexes.last.map({ $0.column < column }) ?? true else {
                        throw reader.corrupt("an index of \(schema.name) names a column it does not have")
                    }
                    indexes.append((column, try readRoot(&reader)))
                }
                tables.append(TableEntry(key: key, schema: schema, nextObjectKey: nextObjectKey, rows: rows,
                                         primaryKeyIndex: primaryKeyIndex, backlinks: backlinks, secondaryIndexes: indexes))
            }
            guard reader.isAtEnd else { throw reader.corrupt("trailing bytes after the catalog") }
            return StoreCatalog(version: version, nextTableKey: nextTableKey, tables: tables)
        }
    }
}
