// A libFuzzer target for the storage decoders; STRATA_FUZZ_DECODER picks one:
//
//   log         bytes as a commit log segment, read back by CommitLog recovery, each record's
//               changeset decoded
//   checkpoint  bytes as a checkpoint file (CheckpointFile.read) or as its snapshot payload
//   changeset   bytes as a changeset (the payload of a log record), decoded and applied
//
//   swift build --scratch-path .build-fuzz -c debug --sanitize=fuzzer --product strata-storage-fuzz
//   mkdir -p .build-fuzz/corpus-log
//   STRATA_FUZZ_DECODER=log SWIFT_BACKTRACE=enable=no ./.build-fuzz/debug/strata-storage-fuzz \
//       -max_total_time=120 -malloc_limit_mb=256 .build-fuzz/corpus-log Tests/StrataFaultTests/FuzzCorpus/log
//
// The first byte of a `log` or `checkpoint` input picks how the rest is framed, so the fuzzer
// gets past the checksums: raw, behind a valid header, or as records sealed with valid
// checksums (see `fuzzLog` and `fuzzCheckpoint`). Any thrown error is expected; a trap, a
// sanitizer report or an allocation past the malloc limit is a finding. The seed inputs are
// the dot-files in Tests/StrataFaultTests/FuzzCorpus/<decoder>. Without `--sanitize=fuzzer` the
// program instead runs each file named on its command line once, to replay a crash.

import Foundation
import StrataEngine
import StrataStorage

/// The decoder under test.
private enum Decoder: String {
    case log, checkpoint, changeset
}

/// Files the `log` and `checkpoint` decoders read, in a scratch directory (in memory when
/// /dev/shm exists, since every input is written out).
private struct Scratch: Sendable {
    let directory: String
    /// Valid headers of log segments 1 and 2, as the log writes them.
    let segmentHeaders: [[UInt8]]

    var storePath: String { directory + "/fuzz.strata" }

    static let shared: Scratch = {
        let root = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : "/tmp"
        let directory = root + "/strata-storage-fuzz-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = directory + "/headers.strata"
        do {
            let (log, _) = try CommitLog.open(storePath: store, checkpointVersion: 0)
            try log.rotate()
            let headers = try CommitLog.segmentPaths(storePath: store).map {
                try POSIXFile(path: $0, mode: .readOnly).readAll()
            }
            try CommitLog.removeAll(storePath: store)
            atexit { try? FileManager.default.removeItem(atPath: Scratch.shared.directory) }
            return Scratch(directory: directory, segmentHeaders: headers)
        } catch {
            fatalError("cannot prepare the scratch directory \(directory): \(error)")
        }
    }()
}

private let decoder: Decoder = {
    let name = ProcessInfo.processInfo.environment["STRATA_FUZZ_DECODER"] ?? ""
    guard let decoder = Decoder(rawValue: name) else {
        fatalError("set STRATA_FUZZ_DECODER to log, checkpoint or changeset (got \"\(name)\")")
    }
    return decoder
}()

/// Seals the bytes as log records with valid checksums: each record takes a length byte, a
/// version byte (0: the next version; otherwise added to the previous one) and that many
/// payload bytes.
private func sealedRecords(_ bytes: ArraySlice<UInt8>, firstVersion: inout UInt64) -> [UInt8] {
    var output: [UInt8] = []
    var rest = bytes
    while rest.count >= 2 {
        let length = Int(rest.removeFirst())
        let step = rest.removeFirst()
        firstVersion = step == 0 ? firstVersion + 1 : firstVersion &+ UInt64(step) &- 1
        var record = LogRecord.makeWriter(capacity: length)
        record.writeRaw(rest.prefix(length))
        rest = rest.dropFirst(length)
        LogRecord.seal(&record, version: firstVersion)
        output += record.bytes
    }
    return output
}

private func write(_ bytes: [UInt8], to path: String) {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        fatalError("cannot write \(path)")
    }
}

/// Mode (first byte % 4): 0 raw segment file; 1 a valid header, then raw bytes; 2 a valid
/// header, then sealed records; 3 two segments of sealed records, split where the second byte says.
private func fuzzLog(_ input: [UInt8]) {
    let scratch = Scratch.shared
    try? CommitLog.removeAll(storePath: scratch.storePath)
    guard let mode = input.first else { return }
    let rest = input.dropFirst()
    let first = scratch.storePath + ".log.0000000000000001"
    var version: UInt64 = 0
    switch mode % 4 {
    case 0: write(Array(rest), to: first)
    case 1: write(scratch.segmentHeaders[0] + rest, to: first)
    case 2: write(scratch.segmentHeaders[0] + sealedRecords(rest, firstVersion: &version), to: first)
    default:
        let split = rest.startIndex + (rest.first.map { Int($0) * rest.count / 256 } ?? 0)
        write(scratch.segmentHeaders[0] + sealedRecords(rest[..<split], firstVersion: &version), to: first)
        write(scratch.segmentHeaders[1] + sealedRecords(rest[split...], firstVersion: &version),
              to: scratch.storePath + ".log.0000000000000002")
    }
    _ = try? StorageDecoding.recoverLog(storePath: scratch.storePath)
}

/// Mode (first byte % 3): 0 the snapshot payload alone; 1 raw checkpoint file; 2 the payload in
/// a checkpoint file written by `CheckpointFile.write` (valid header).
private func fuzzCheckpoint(_ input: [UInt8]) {
    guard let mode = input.first else { return }
    let rest = Array(input.dropFirst())
    let path = Scratch.shared.storePath
    switch mode % 3 {
    case 0:
        _ = try? StorageDecoding.decodeCheckpointPayload(rest)
    case 1:
        write(rest, to: path)
        _ = try? StorageDecoding.decodeCheckpointFile(at: path)
    default:
        do {
            try CheckpointFile.write(path: path, version: 0, payload: rest)
        } catch {
            fatalError("cannot write the checkpoint: \(error)")
        }
        _ = try? StorageDecoding.decodeCheckpointFile(at: path)
    }
}

/// Decodes `size` bytes with the chosen decoder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    switch decoder {
    case .log: fuzzLog(input)
    case .checkpoint: fuzzCheckpoint(input)
    case .changeset: _ = try? StorageDecoding.decodeChangeset(input)
    }
    return 0
}

/// The entry point of a build without `--sanitize=fuzzer` (see Sources/StrataQueryFuzz):
/// replays each file named on the command line.
@_cdecl("strata_storage_fuzz_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    for path in CommandLine.arguments.dropFirst() {
        guard let contents = FileManager.default.contents(atPath: path) else {
            print("cannot read \(path)")
            return 1
        }
        let bytes = [UInt8](contents) + [0] // Never empty, so the buffer has a base address.
        _ = bytes.withUnsafeBufferPointer { fuzz($0.baseAddress!, bytes.count - 1) }
        print("decoded without trapping: \(path)")
    }
    return 0
}
