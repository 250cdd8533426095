import Foundation
import StrataStorage
import Testing
@testable import StrataEngine

/// Stores in the formats earlier Strata versions wrote, made from a store of today's format.

/// Rewrites the closed store at `path` (a page file and its log) as a format 2 store: the page
/// file's snapshot as a checkpoint file (see ``CheckpointFile``) at `path`, the log unchanged.
func rewriteAsFormatTwo(_ path: String) throws {
    let header = try PageFile.open(path: path).header
    let snapshot = try StorePages.open(file: POSIXFile(path: path, mode: .readOnly), readOnly: true, cache: nil).snapshot
    let checkpoint = CheckpointFile.Header(version: snapshot.version, storeID: header.storeID,
                                           firstSegment: header.checkpoint.firstLogSegment)
    try FileSystem.remove(path)
    try CheckpointFile.write(path: path, header: checkpoint, payload: snapshot.encoded()) { _ in }
}

/// Writes `bytes` as the whole file at `path`.
func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Rewrites the closed store at `path` as the format 1 files an earlier Strata wrote: its
/// checkpoint, and the records after it in format 1 segment `sequence`, the last record cut
/// short by `tear` bytes.
func rewriteAsFormatOne(_ path: String, sequence: UInt64 = 5, tear: Int = 0) throws {
    try rewriteAsFormatTwo(path)
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

