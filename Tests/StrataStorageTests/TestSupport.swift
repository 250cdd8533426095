#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import StrataStorage
import StrataSupport
// The shared test helpers (temporary directories, seeded random numbers, threads) for every
// file of this target.
@_exported import StrataTestSupport

/// The whole contents of the file at `path`.
func readFile(_ path: String) throws -> [UInt8] {
    try POSIXFile(path: path, mode: .readOnly).readAll()
}

/// Replaces the file at `path` with exactly `bytes`.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try POSIXFile(path: path, mode: .truncate).write(bytes, at: 0)
}

/// The size of the file at `path`.
func fileSize(_ path: String) throws -> UInt64 {
    try POSIXFile(path: path, mode: .readOnly).size()
}

/// A deterministic payload for `version` whose length varies (0 for some versions) and whose
/// bytes are not all alike, so a record read back with another version's payload is noticed.
func samplePayload(_ version: UInt64) -> [UInt8] {
    let length = Int((version &* 37) % 61)
    return (0..<length).map { UInt8(truncatingIfNeeded: Int(version) &* 131 &+ $0 &* 7 &+ 3) }
}

/// A sealed log record of `version` holding `payload`.
func sealedRecord(version: UInt64, payload: [UInt8]) -> [UInt8] {
    var writer = LogRecord.makeWriter(capacity: payload.count)
    writer.writeRaw(payload)
    LogRecord.seal(&writer, version: version)
    return writer.bytes
}

/// Appends the sealed records of `versions` (with ``samplePayload(_:)``) to `log`.
func appendRecords(_ log: CommitLog, versions: ClosedRange<UInt64>) throws {
    for version in versions {
        try log.append(sealedRecord(version: version, payload: samplePayload(version)))
    }
}

/// The path of the store used by the commit-log tests inside `directory`.
func storePath(in directory: TemporaryDirectory) -> String {
    directory.file("store.strata")
}

/// A checkpoint header at `version` of store 0x77 that names log segment 3.
func sampleHeader(_ version: UInt64) -> CheckpointFile.Header {
    CheckpointFile.Header(version: version, storeID: 0x77, firstSegment: 3)
}
