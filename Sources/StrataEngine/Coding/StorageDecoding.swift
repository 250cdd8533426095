import StrataStorage
import StrataSupport

/// The decoders of what the store reads from disk, one entry point per format, for the fuzz
/// target (Sources/StrataStorageFuzz) and the test that replays its corpus. Each throws a
/// ``StrataError`` on malformed input; a trap or an unbounded allocation is a bug.
package enum StorageDecoding {
    /// Decodes a checkpoint payload (the snapshot encoding).
    ///
    /// - Returns: the number of tables decoded.
    package static func decodeCheckpointPayload(_ bytes: [UInt8]) throws -> Int {
        try Snapshot.decode(bytes, path: "checkpoint", offset: 0).allTables.count
    }

    /// Reads the checkpoint file at `path` and decodes its payload, as opening a store does.
    ///
    /// - Returns: the number of tables decoded, or nil when there is no file.
    package static func decodeCheckpointFile(at path: String) throws -> Int? {
        guard let contents = try CheckpointFile.read(path: path) else { return nil }
        return try decodeCheckpointPayload(contents.payload)
    }

    /// Opens the page file at `path` as a store's (read-only) and reads every table, as opening a
    /// store does: the header's roots, the catalog, every tree node, the free list.
    ///
    /// - Returns: the number of tables read.
    package static func decodePageStore(at path: String) throws -> Int {
        try StorePages.open(file: POSIXFile(path: path, mode: .readOnly), readOnly: true, cache: nil).snapshot.allTables.count
    }

    /// Decodes `bytes` as each of the page store's small images in turn: a header's roots blob, a
    /// catalog, a free-page list (of a file of 1,000 pages), the entries of a leaf of rows
    /// (packed into a ``RowBlock`` as a page read packs them, then read back), a delta directory,
    /// and a leaf delta (its changes alone, then applied to a leaf of three rows).
    ///
    /// - Returns: how many of the six decoded.
    package static func decodePageStoreImages(_ bytes: [UInt8]) -> Int {
        let extent = PageExtent(first: 2, count: 1)
        let decoded: [Bool] = [
            (try? StoreCatalog.Roots.decode(bytes, path: "roots")) != nil,
            (try? StoreCatalog.decode(bytes, path: "catalog", at: extent, pageSize: 4096)) != nil,
            (try? FreePageList.decode(bytes, pageCount: 1000, path: "free list", at: extent)) != nil,
            (try? decodeRowLeaf(bytes)) != nil,
            (try? DeltaDirectory.decode(bytes, pageCount: 1000, payloadCapacity: 4064, path: "directory", at: extent,
                                        pageSize: 4096)) != nil,
            (try? decodeLeafDelta(bytes)) != nil,
        ]
        return decoded.filter { $0 }.count
    }

    /// Decodes `bytes` as a delta of a leaf of rows, then applies it to a leaf of three rows of
    /// two values each, reading every value of the result back.
    private static func decodeLeafDelta(_ bytes: [UInt8]) throws -> Int {
        _ = try LeafDelta<RowEntryCoding>.shapes(of: bytes, origin: "delta", originOffset: 0)
        let keys = [ObjectKey(1), ObjectKey(3), ObjectKey(5)]
        let rows = keys.map { Row([.int($0.rawValue), .string("row \($0.rawValue)")]) }
        let (_, applied) = try LeafDelta<RowEntryCoding>.apply(bytes, to: keys, rows, origin: "delta", originOffset: 0)
        return applied.reduce(0) { $0 + $1.values.count }
    }

    /// Decodes `bytes` as the entries of a leaf of rows (an entry count, then each object key and
    /// row) and reads every value of every row back.
    private static func decodeRowLeaf(_ bytes: [UInt8]) throws -> Int {
        try bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: "leaf")
            let count = try reader.readCount(minimumElementSize: 2)
            guard count <= SortedTree<ObjectKey, Row>.leafCapacity else { throw reader.corrupt("\(count) entries in a leaf") }
            let (_, rows) = try RowEntryCoding.readLeafEntries(count, from: &reader)
            return rows.reduce(0) { $0 + $1.values.count }
        }
    }

    /// Decodes a changeset (the payload of a commit log record) and applies it to an empty
    /// snapshot, as replaying the log does.
    ///
    /// - Returns: the number of instructions decoded.
    package static func decodeChangeset(_ bytes: [UInt8]) throws -> Int {
        let instructions = try bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: "changeset")
            return try reader.readPayloadInstructions()
        }
        var snapshot = Snapshot.empty
        for instruction in instructions { try snapshot.apply(instruction) }
        return instructions.count
    }

    /// Recovers the commit log of `storePath` (its segment files must already be there) and
    /// decodes every record's changeset, as opening a store does.
    ///
    /// - Returns: the number of records recovered.
    package static func recoverLog(storePath: String) throws -> Int {
        let (_, recovery) = try CommitLog.open(storePath: storePath)
        var snapshot = Snapshot.empty
        for record in recovery.records {
            let instructions = try record.payload.withUnsafeBytes { raw in
                var reader = ByteReader(raw, origin: record.path, originOffset: record.offset)
                return try reader.readInstructions()
            }
            for instruction in instructions { try? snapshot.apply(instruction) }
        }
        return recovery.records.count
    }
}
