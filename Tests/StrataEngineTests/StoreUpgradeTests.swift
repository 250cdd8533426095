import Foundation
import StrataStorage
import Testing
@testable import StrataEngine

/// Writes `bytes` as the whole file at `path`.
private func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Rewrites the closed format 2 store at `path` as the format 1 files an earlier Strata wrote:
/// its checkpoint, and the records after it in format 1 segment `sequence`, the last record
/// cut short by `tear` bytes.
private func rewriteAsFormatOne(_ path: String, sequence: UInt64 = 5, tear: Int = 0) throws {
    let checkpoint = try #require(try CheckpointFile.read(path: path))
    let anchor = LogAnchor(storeID: checkpoint.header.storeID, version: checkpoint.version,
                           firstSegment: checkpoint.header.firstSegment, path: path)
    let records = try CommitLog.open(storePath: path, anchor: anchor).1.records
    try CommitLog.removeAll(storePath: path)

    var header = ByteWriter()
    header.writeRaw(Array("STRATACK".utf8))
    header.writeFixed(UInt32(1))
    header.writeFixed(UInt32(0))
    header.writeFixed(checkpoint.version)
    header.writeFixed(UInt64(checkpoint.payload.count))
    header.writeFixed(CRC32C.checksum(checkpoint.payload))
    header.writeFixed(CRC32C.checksum(header.bytes))
    try write(header.bytes + checkpoint.payload, to: path)

    var segment = ByteWriter()
    segment.writeRaw(Array("STRATLOG".utf8))
    segment.writeFixed(UInt32(1))
    segment.writeFixed(UInt32(0))
    segment.writeFixed(sequence)
    segment.writeFixed(UInt32(0))
    segment.writeFixed(CRC32C.checksum(segment.bytes))
    var log = segment.bytes
    for record in records {
        var recordHeader = ByteWriter()
        recordHeader.writeFixed(UInt32(0x3152_4C53))
        recordHeader.writeFixed(UInt32(record.payload.count))
        recordHeader.writeFixed(record.version)
        recordHeader.writeFixed(CRC32C.checksum(record.payload))
        recordHeader.writeFixed(CRC32C.checksum(recordHeader.bytes))
        log += recordHeader.bytes + record.payload
    }
    log.removeLast(tear)
    let hex = String(sequence, radix: 16)
    try write(log, to: path + ".log." + String(repeating: "0", count: 16 - hex.count) + hex)
}

/// Stores written by an earlier Strata (format 1) are upgraded by a read-write open.
@Suite("Store upgrade from format 1")
struct StoreUpgradeTests {
    /// A closed format 1 store at `path` holding items 1...15 (10 in its checkpoint, 5 in its log).
    private func makeFormatOneStore(_ path: String, tear: Int = 0) throws {
        try withStore(.file(path)) { store in
            try insertItems(1...10, into: store)
            try store.checkpoint()
            try insertItems(11...15, into: store)
        }
        try rewriteAsFormatOne(path, tear: tear)
    }

    @Test("a format 1 store opened read-write keeps every commit, is rewritten in format 2, and reopens")
    func upgrade() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("old.strata")
            try makeFormatOneStore(path)
            try withStore(.file(path)) { store in
                #expect(itemCount(store) == 15)
                try insertItems(16...17, into: store)
            }
            #expect(try CheckpointFile.read(path: path)?.header.firstSegment == 6)
            #expect(try CommitLog.segmentPaths(storePath: path) == [path + ".log.0000000000000006"])
            try withStore(.file(path)) { store in #expect(itemCount(store) == 17) }
        }
    }

    @Test("a torn last record of a format 1 log is cut, as format 1 did")
    func tornFormatOneTail() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("torn.strata")
            try makeFormatOneStore(path, tear: 3)
            try withStore(.file(path)) { store in #expect(itemCount(store) == 14) }
        }
    }

    @Test("an upgrade that stopped before its checkpoint (a format 2 segment after the format 1 one) runs again")
    func interruptedUpgrade() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("again.strata")
            try makeFormatOneStore(path)
            try write(Array("STRATLOG".utf8) + [2, 0, 0, 0] + [UInt8](repeating: 7, count: 60),
                      to: path + ".log.0000000000000006")
            try withStore(.file(path)) { store in #expect(itemCount(store) == 15) }
            try withStore(.file(path)) { store in #expect(itemCount(store) == 15) }
        }
    }

    @Test("a format 1 store opened read-only throws invalidFileFormat and is left as it was")
    func readOnlyFormatOne() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("ro.strata")
            try makeFormatOneStore(path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = expectStrataError(.invalidFileFormat) {
                try Store.open(StoreConfiguration(location: .file(path: path), readOnly: true))
            }
            #expect(error?.message.contains("format 1") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try CommitLog.segmentPaths(storePath: path) == [path + ".log.0000000000000005"])
        }
    }
}
