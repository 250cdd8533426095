// A libFuzzer target for the storage decoders; STRATA_FUZZ_DECODER picks one:
//
//   log         bytes as a commit log segment, read back by CommitLog recovery, each record's
//               changeset decoded
//   checkpoint  bytes as a checkpoint file (CheckpointFile.read) or as its snapshot payload
//   changeset   bytes as a changeset (the payload of a log record), decoded and applied
//   page        bytes as a page of the paged store's page file or as its header slots, as a
//               page file opened and read and then as a store's (catalog, trees, free list), or
//               as the store's roots, catalog, free-list, delta-directory and leaf-delta images
//               (see `fuzzPage`)
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
import StrataFuzzSupport
import StrataEngine
import StrataStorage

/// The decoder under test.
private enum Decoder: String {
    case log, checkpoint, changeset, page
}

/// Files the `log` and `checkpoint` decoders read, in a scratch directory (in memory when
/// /dev/shm exists, since every input is written out).
private struct Scratch: Sendable {
    let directory: String

    var storePath: String { directory + "/fuzz.strata" }

    static let shared: Scratch = {
        let root = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : "/tmp"
        let directory = root + "/strata-storage-fuzz-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.shared.directory) }
        return Scratch(directory: directory)
    }()
}

private let decoder: Decoder = {
    let name = ProcessInfo.processInfo.environment["STRATA_FUZZ_DECODER"] ?? ""
    guard let decoder = Decoder(rawValue: name) else {
        fatalError("set STRATA_FUZZ_DECODER to log, checkpoint, changeset or page (got \"\(name)\")")
    }
    return decoder
}()

/// Splits the bytes into records: each takes a length byte, a version byte (0: the next
/// version; otherwise added to the previous one) and that many payload bytes.
private func records(_ bytes: ArraySlice<UInt8>, firstVersion: inout UInt64) -> [(version: UInt64, payload: [UInt8])] {
    var output: [(UInt64, [UInt8])] = []
    var rest = bytes
    while rest.count >= 2 {
        let length = Int(rest.removeFirst())
        let step = rest.removeFirst()
        firstVersion = step == 0 ? firstVersion + 1 : firstVersion &+ UInt64(step) &- 1
        output.append((firstVersion, Array(rest.prefix(length))))
        rest = rest.dropFirst(length)
    }
    return output
}

/// Appends `records` through the real log writer (valid segment headers, record checksums and
/// chain), rotating to a new segment before record `rotateAt`.
private func writeLog(_ records: [(version: UInt64, payload: [UInt8])], rotateAt: Int?, storePath: String) {
    do {
        let (log, _) = try CommitLog.open(storePath: storePath)
        for (index, record) in records.enumerated() {
            if index == rotateAt { try log.rotate() }
            var writer = LogRecord.makeWriter(capacity: record.payload.count)
            writer.writeRaw(record.payload)
            LogRecord.seal(&writer, version: record.version)
            try log.append(writer.bytes)
        }
        try log.sync()
    } catch {
        fatalError("cannot write the log: \(error)")
    }
}

private func write(_ bytes: [UInt8], to path: String) {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        fatalError("cannot write \(path)")
    }
}

/// Mode (first byte % 4): 0 raw segment file; 1 a valid segment header, then raw bytes; 2
/// records written by the log writer; 3 the same over two segments, split where the second
/// byte says.
private func fuzzLog(_ input: [UInt8]) {
    let scratch = Scratch.shared
    try? CommitLog.removeAll(storePath: scratch.storePath)
    guard let mode = input.first else { return }
    let rest = input.dropFirst()
    let first = scratch.storePath + ".log.0000000000000001"
    var version: UInt64 = 0
    switch mode % 4 {
    case 0: write(Array(rest), to: first)
    case 1:
        writeLog([], rotateAt: nil, storePath: scratch.storePath)
        guard let header = try? POSIXFile(path: first, mode: .readOnly).readAll() else { fatalError("no segment") }
        write(header + rest, to: first)
    case 2: writeLog(records(rest, firstVersion: &version), rotateAt: nil, storePath: scratch.storePath)
    default:
        let all = records(rest.dropFirst(), firstVersion: &version)
        let split = rest.first.map { Int($0) * all.count / 256 } ?? 0
        writeLog(all, rotateAt: split, storePath: scratch.storePath)
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
            try CheckpointFile.write(path: path, header: CheckpointFile.Header(version: 0, storeID: 1, firstSegment: 1),
                                     payload: rest)
        } catch {
            fatalError("cannot write the checkpoint: \(error)")
        }
        _ = try? StorageDecoding.decodeCheckpointFile(at: path)
    }
}

/// `bytes` padded with zeros or cut to `count` bytes, its frame checksum (bytes 0..<4) made valid,
/// so the fuzzer reaches the checks behind it.
private func sealedPage(_ bytes: some Collection<UInt8>, count: Int) -> [UInt8] {
    var page = Array(bytes.prefix(count))
    page += repeatElement(0, count: count - page.count)
    let checksum = page.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[4...])) }
    withUnsafeBytes(of: checksum.littleEndian) { for index in 0..<4 { page[index] = $0[index] } }
    return page
}

/// Mode (first byte % 4): 0 the rest as page 2 of a 4 KiB page file (`PageFrame.decode`); 1 the
/// same with a valid checksum; 2 the rest as the start of a page file (the header slots,
/// `PageFileHeader.current`); 3 a page file of 4 KiB pages built from the rest, every page with
/// a valid checksum (the first page is slot 0, the second slot 1), opened with `PageFile.open`
/// and every page its header counts read.
private func fuzzPage(_ input: [UInt8]) {
    guard let mode = input.first else { return }
    let rest = Array(input.dropFirst())
    switch mode % 5 {
    case 0: _ = try? PageFrame.decode(rest, number: 2, pageSize: 4096, path: "fuzz")
    case 4: _ = StorageDecoding.decodePageStoreImages(rest)
    case 1: _ = try? PageFrame.decode(sealedPage(rest, count: 4096), number: 2, pageSize: 4096, path: "fuzz")
    case 2: _ = try? PageFileHeader.current(in: rest, fileSize: UInt64(rest.count), path: "fuzz")
    default:
        var file: [UInt8] = []
        var chunks = rest[...]
        repeat {
            file += sealedPage(chunks.prefix(4096), count: 4096)
            chunks = chunks.dropFirst(4096)
        } while !chunks.isEmpty || file.count < 2 * 4096
        let path = Scratch.shared.storePath
        write(file, to: path)
        guard let pages = try? PageFile.open(path: path, options: .init(cacheBytes: 4 * 4096)) else { return }
        for number in 2..<min(pages.header.checkpoint.pageCount, 64) { _ = try? pages.read(page: number) }
        _ = try? StorageDecoding.decodePageStore(at: path)
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
    case .page: fuzzPage(input)
    }
    return 0
}

/// The entry point of a build without `--sanitize=fuzzer` (SwiftPM links an executable's `main`
/// to `<module>_main`): replays each file named on the command line.
@_cdecl("strata_storage_fuzz_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.run(CommandLine.arguments.dropFirst(), through: fuzz)
}
