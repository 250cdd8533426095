import Foundation
import Testing
@testable import StrataStorage
import StrataSupport

/// A one-segment log whose first records are durable (synced, and covered by the durable marker)
/// and whose later records were appended after the last sync: the state a power cut can tear.
private struct SyncedThenTail {
    static let page = 4096
    static let sector = 512

    let store: String
    let segment: String
    let bytes: [UInt8]
    /// `ends[i]` is the offset after the record of version `i + 1`.
    let ends: [Int]
    /// The length the durable marker covers.
    let durableLength: Int

    /// Appends records until the durable part is at least `durableBytes` long, syncs twice (the
    /// second sync writes the marker), then appends until `tailBytes` more follow it.
    init(directory: TemporaryDirectory, durableBytes: Int, tailBytes: Int) throws {
        store = directory.file("original.strata")
        segment = LogSegment.path(storePath: store, sequence: 1)
        let (log, _) = try CommitLog.open(storePath: store)
        var ends: [Int] = []
        var version: UInt64 = 0
        func appendUntil(_ length: Int) throws {
            while Int(log.currentSegmentSize) < length {
                version += 1
                try log.append(sealedRecord(version: version, payload: Self.payload(version)))
                ends.append(Int(log.currentSegmentSize))
            }
        }
        try appendUntil(durableBytes)
        try log.sync()
        try log.sync()
        durableLength = Int(log.currentSegmentSize)
        try appendUntil(durableLength + tailBytes)
        bytes = try readFile(segment)
        self.ends = ends
    }

    /// Payloads of 1 to 1,500 bytes, so records straddle pages and sectors in many ways.
    static func payload(_ version: UInt64) -> [UInt8] {
        let length = Int((version &* 7919) % 1500) + 1
        return (0..<length).map { UInt8(truncatingIfNeeded: Int(version) &* 31 &+ $0 &* 17 &+ 1) }
    }

    /// The pages that hold bytes after the durable length.
    var tailPages: Range<Int> { (durableLength / Self.page)..<((bytes.count + Self.page - 1) / Self.page) }

    /// The file a power cut leaves when only the pages in `written` reached the disk, with page
    /// `torn.page` written only in its first `torn.sectors` sectors, and the file cut after the
    /// last written page when `short`. Bytes before the durable length are always kept; unwritten
    /// bytes after it read as zeros (segments are only appended to).
    func crashState(written: Set<Int>, torn: (page: Int, sectors: Int)?, short: Bool) -> [UInt8] {
        var state = bytes
        func zero(_ range: Range<Int>) {
            let lower = max(range.lowerBound, durableLength)
            let upper = min(range.upperBound, state.count)
            if lower < upper { for index in lower..<upper { state[index] = 0 } }
        }
        for page in tailPages where !written.contains(page) {
            zero(page * Self.page..<(page + 1) * Self.page)
        }
        if let torn {
            zero(torn.page * Self.page + torn.sectors * Self.sector..<(torn.page + 1) * Self.page)
        }
        if short {
            let lastWritten = written.max().map { min(($0 + 1) * Self.page, bytes.count) } ?? durableLength
            state.removeLast(state.count - max(durableLength, lastWritten))
        }
        return state
    }

    /// How many records a correct recovery keeps from `state`: every record whose bytes, and
    /// those of all records before it, came through intact.
    func intactRecords(in state: [UInt8]) -> Int {
        let intactLength = state.withUnsafeBufferPointer { state in
            bytes.withUnsafeBufferPointer { bytes in
                var index = 0
                while index < min(state.count, bytes.count) && state[index] == bytes[index] { index += 1 }
                return index
            }
        }
        return ends.prefix { $0 <= intactLength }.count
    }

    /// Writes `state` as the only segment of a new store in `directory`, opens it, and checks
    /// that recovery keeps exactly the intact records and cuts the rest.
    func expectRecovery(of state: [UInt8], in directory: TemporaryDirectory, name: String,
                        _ comment: Comment) throws {
        let store = directory.file(name)
        let segment = LogSegment.path(storePath: store, sequence: 1)
        try writeFile(segment, state)
        let kept = intactRecords(in: state)
        #expect(ends[kept - 1] >= durableLength, "the durable records survive every crash state")
        let (log, recovery) = try CommitLog.open(storePath: store)
        #expect(recovery.records.map(\.version) == Array(1...UInt64(kept)), comment)
        #expect(recovery.records.allSatisfy { $0.payload == Self.payload($0.version) }, comment)
        // What follows the intact records is cut off, unless it is all zeros (kept as space
        // reserved for appends).
        let reservedOnly = state[ends[kept - 1]...].allSatisfy { $0 == 0 }
        #expect(try fileSize(segment) == UInt64(reservedOnly ? state.count : ends[kept - 1]), comment)
        #expect(log.lastVersion == UInt64(kept), comment)
        try CommitLog.removeAll(storePath: store)
    }
}

@Suite("CommitLog recovery after a power cut")
struct CommitLogPowerCutTests {
    @Test("Every mix of written and unwritten 4 KiB pages after the last sync, with any one page torn at a 512-byte boundary and the file full-length or short, opens with the intact prefix")
    func everyPageCombination() throws {
        try withTemporaryDirectory { directory in
            let log = try SyncedThenTail(directory: directory, durableBytes: 6000, tailBytes: 3 * SyncedThenTail.page)
            let pages = Array(log.tailPages)
            #expect(pages.count == 4)
            var states = 0
            for mask in 0..<(1 << pages.count) {
                let written = Set(pages.indices.filter { mask & (1 << $0) != 0 }.map { pages[$0] })
                for short in [false, true] {
                    let state = log.crashState(written: written, torn: nil, short: short)
                    try log.expectRecovery(of: state, in: directory, name: "s.strata",
                                           "written \(written.sorted()) short \(short)")
                    states += 1
                }
                for page in written.sorted() {
                    for sectors in 1..<(SyncedThenTail.page / SyncedThenTail.sector) {
                        let state = log.crashState(written: written, torn: (page, sectors), short: false)
                        try log.expectRecovery(of: state, in: directory, name: "s.strata",
                                               "written \(written.sorted()) page \(page) torn after \(sectors) sectors")
                        states += 1
                    }
                }
            }
            #expect(states == 32 + 4 * 8 * 7)
        }
    }

    @Test("Random crash states of a 16-page unsynced tail open with the intact prefix (seeded; STRATA_SEED replays, STRATA_POWER_CUT_STATES sets the count)")
    func randomPageCombinations() throws {
        let seed = SeededRandom.seedFromEnvironment()
        let count = ProcessInfo.processInfo.environment["STRATA_POWER_CUT_STATES"].flatMap(Int.init) ?? 200
        print("CommitLogPowerCutTests.randomPageCombinations: \(count) states, seed \(seed) "
              + "(replay with STRATA_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        try withTemporaryDirectory { directory in
            let log = try SyncedThenTail(directory: directory, durableBytes: 10_000,
                                         tailBytes: 15 * SyncedThenTail.page)
            let pages = Array(log.tailPages)
            for round in 0..<count {
                let probability = Double.random(in: 0.2...0.95, using: &random)
                let written = Set(pages.filter { _ in Double.random(in: 0..<1, using: &random) < probability })
                let torn = written.randomElement(using: &random).map {
                    (page: $0, sectors: Int.random(in: 1..<8, using: &random))
                }
                let short = Bool.random(using: &random)
                let state = log.crashState(written: written, torn: torn, short: short)
                try log.expectRecovery(of: state, in: directory, name: "r.strata",
                                       "seed \(seed) round \(round)")
            }
        }
    }

    @Test("A zeroed page inside the durable part, followed by valid records, throws corruptFile naming the segment and the offset of the first damaged record")
    func zeroedPageBeforeDurablePoint() throws {
        try withTemporaryDirectory { directory in
            let log = try SyncedThenTail(directory: directory, durableBytes: 3 * SyncedThenTail.page,
                                         tailBytes: SyncedThenTail.page)
            var state = log.bytes
            for index in SyncedThenTail.page..<2 * SyncedThenTail.page { state[index] = 0 }
            let store = directory.file("damaged.strata")
            let segment = LogSegment.path(storePath: store, sequence: 1)
            try writeFile(segment, state)
            let damagedRecord = log.ends.first { $0 > SyncedThenTail.page }!
            let start = log.ends[log.ends.firstIndex(of: damagedRecord)! - 1]
            let error = #expect(throws: StrataError.self) { _ = try CommitLog.open(storePath: store) }
            #expect(error?.code == .corruptFile)
            #expect(error?.path == segment)
            #expect(error?.offset == UInt64(start))
            #expect(try readFile(segment) == state, "a damaged log is left as it was")
        }
    }

    @Test("A last segment shorter than its durable length throws corruptFile at its end")
    func shorterThanDurableLength() throws {
        try withTemporaryDirectory { directory in
            let log = try SyncedThenTail(directory: directory, durableBytes: 5000, tailBytes: 0)
            let store = directory.file("short.strata")
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let length = log.ends[log.ends.count - 2]
            try writeFile(segment, Array(log.bytes[..<length]))
            let error = #expect(throws: StrataError.self) { _ = try CommitLog.open(storePath: store) }
            #expect(error?.code == .corruptFile)
            #expect(error?.path == segment)
            #expect(error?.offset == UInt64(length))
        }
    }

    @Test("A record header forged inside a client payload is never read as a record: a torn last record that holds a complete forged record is cut, not called corruption, and the forgery is not replayed")
    func forgedHeaderInPayload() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let startOfLast: Int
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...3)
                try log.sync()
                try log.sync()
                startOfLast = Int(log.currentSegmentSize)
                // A client string that contains a whole valid-looking record of version 5, with
                // every chain value an attacker might guess.
                var client: [UInt8] = Array("padding ".utf8)
                for chain: UInt32 in [0, 1, 0xFFFF_FFFF] {
                    let forgedPayload = Array("forged record \(chain)".utf8)
                    client += LogRecord.encodeHeader(payloadLength: forgedPayload.count, version: 5,
                                                     payloadCRC: CRC32C.checksum(forgedPayload), chain: chain)
                    client += forgedPayload
                }
                client += Array(repeating: 0x41, count: 300)
                try log.append(sealedRecord(version: 4, payload: client))
                try log.sync()
            }
            let full = try readFile(segment)
            // Tear record 4 anywhere after its header: every cut keeps records 1...3 and opens.
            for length in (startOfLast + LogRecord.headerSize)..<full.count {
                try writeFile(segment, Array(full[..<length]))
                let (_, recovery) = try CommitLog.open(storePath: store)
                #expect(recovery.records.map(\.version) == [1, 2, 3], "length \(length)")
                #expect(try fileSize(segment) == UInt64(startOfLast), "length \(length)")
            }
            // Whole, record 4 is read with its payload and nothing of the forgery.
            try writeFile(segment, full)
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == [1, 2, 3, 4])
        }
    }

    @Test("A record left on disk after a recovery cut is not accepted behind the different record written in its place")
    func staleRecordAfterRewrite() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let cut: Int
            let old: [UInt8]
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...2)
                try log.sync()
                try log.sync()
                cut = Int(log.currentSegmentSize)
                try log.append(sealedRecord(version: 3, payload: Array(repeating: 1, count: 40)))
                try log.append(sealedRecord(version: 4, payload: Array(repeating: 2, count: 40)))
                old = try readFile(segment)
            }
            let endOfThird = cut + LogRecord.headerSize + 40
            // Record 3 was torn: recovery cuts it and record 4; a new record 3 of the same length
            // is appended at the same offset.
            var torn = old
            torn[cut + LogRecord.headerSize] ^= 0xFF
            try writeFile(segment, torn)
            do {
                let (log, recovery) = try CommitLog.open(storePath: store)
                #expect(recovery.records.map(\.version) == [1, 2])
                try log.append(sealedRecord(version: 3, payload: Array(repeating: 9, count: 40)))
                try log.sync()
            }
            // The old record 4 reappears behind it (as if the cut had not reached the disk).
            try writeFile(segment, try readFile(segment) + old[endOfThird...])
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == [1, 2, 3], "the stale record 4 is cut")
            #expect(recovery.records.last?.payload == Array(repeating: 9, count: 40))
        }
    }

    @Test("Opening marks the recovered records durable only after syncing them: when that sync fails, the marker is unchanged")
    func markerFollowsRecoverySync() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...5)
            }
            func marker() throws -> LogSegment.Marker? { try readFile(segment).withUnsafeBytes(LogSegment.readMarker) }
            #expect(try marker()?.durableLength == UInt64(LogSegment.headerSize))
            StorageFaults.shared.failNextSyncs(matching: segment)
            #expect(throws: StrataError.self) { _ = try CommitLog.open(storePath: store) }
            #expect(try marker()?.durableLength == UInt64(LogSegment.headerSize))
            let (log, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == [1, 2, 3, 4, 5])
            #expect(try marker()?.durableLength == log.currentSegmentSize)
        }
    }
}
