import Testing
@testable import StrataStorage
import StrataSupport

/// A one-segment log of five records (versions 1...5), as written and synced; when `durable`, a
/// second sync has written the durable marker that covers them all.
private struct FiveRecordLog {
    let store: String
    let segment: String
    /// The whole segment file.
    let bytes: [UInt8]
    /// `starts[i]` and `ends[i]` bound the record of version `i + 1`.
    let starts: [Int]
    let ends: [Int]

    init(directory: TemporaryDirectory, name: String = "store.strata", durable: Bool) throws {
        store = directory.file("") + name
        segment = LogSegment.path(storePath: store, sequence: 1)
        let (log, _) = try CommitLog.open(storePath: store)
        var starts: [Int] = []
        var ends: [Int] = []
        for version in UInt64(1)...5 {
            starts.append(Int(log.currentSegmentSize))
            try log.append(sealedRecord(version: version, payload: samplePayload(version)))
            ends.append(Int(log.currentSegmentSize))
        }
        try log.sync()
        if durable { try log.sync() }
        bytes = try readFile(segment)
        self.starts = starts
        self.ends = ends
    }

    /// The byte range of the record of `version`.
    func range(ofVersion version: Int) -> Range<Int> { starts[version - 1]..<ends[version - 1] }
}

/// The payload appended after recovery, different from every ``samplePayload(_:)``.
private func laterPayload(_ version: UInt64) -> [UInt8] {
    Array("appended after recovery as version \(version)".utf8)
}

@Suite("CommitLog recovery")
struct CommitLogRecoveryTests {
    // MARK: - Torn tails

    @Test("Every torn tail after record 3 of an unsynced log is cut back to the last complete record, and history continues after it")
    func everyTornTail() throws {
        try withTemporaryDirectory { directory in
            let original = try FiveRecordLog(directory: directory, durable: false)
            #expect(original.bytes.count == original.ends[4])
            for length in original.ends[2]..<original.bytes.count {
                let store = directory.file("torn-\(length).strata")
                let segment = LogSegment.path(storePath: store, sequence: 1)
                try writeFile(segment, Array(original.bytes[..<length]))

                let complete = length >= original.ends[3] ? 4 : 3
                let kept = original.ends[complete - 1]
                let (log, recovery) = try CommitLog.open(storePath: store)
                #expect(recovery.records.map(\.version) == Array(1...UInt64(complete)), "length \(length)")
                #expect(
                    recovery.records.map(\.payload) == (1...UInt64(complete)).map(samplePayload),
                    "length \(length)")
                #expect(recovery.truncatedBytes == UInt64(length - kept), "length \(length)")
                #expect(try fileSize(segment) == UInt64(kept), "length \(length): file cut to the last record")
                #expect(log.currentSegmentSize == UInt64(kept), "length \(length)")

                let next = UInt64(complete + 1)
                try log.append(sealedRecord(version: next, payload: laterPayload(next)))
                try log.sync()
                let (_, reopened) = try CommitLog.open(storePath: store)
                #expect(reopened.records.map(\.version) == Array(1...next), "length \(length)")
                #expect(
                    reopened.records.map(\.payload) == (1..<next).map(samplePayload) + [laterPayload(next)],
                    "length \(length)")
                #expect(reopened.truncatedBytes == 0, "length \(length)")
                #expect(reopened.records.last?.offset == UInt64(kept), "length \(length)")
            }
        }
    }

    @Test("A tail of zero bytes after the last durable record (reserved space) is kept, and appends go over it")
    func zeroTail() throws {
        try withTemporaryDirectory { directory in
            let original = try FiveRecordLog(directory: directory, durable: true)
            try writeFile(original.segment, original.bytes + [UInt8](repeating: 0, count: 100))
            let (log, recovery) = try CommitLog.open(storePath: original.store)
            #expect(recovery.records.map(\.version) == [1, 2, 3, 4, 5])
            #expect(recovery.truncatedBytes == 0)
            #expect(try fileSize(original.segment) == UInt64(original.bytes.count + 100))
            try appendRecords(log, versions: 6...7)
            try log.sync()
            let (_, reopened) = try CommitLog.open(storePath: original.store)
            #expect(reopened.records.map(\.version) == [1, 2, 3, 4, 5, 6, 7])
        }
    }

    @Test("A tail of zeros followed by other bytes is a torn tail: all of it is cut off")
    func zeroTailThenGarbage() throws {
        try withTemporaryDirectory { directory in
            let original = try FiveRecordLog(directory: directory, durable: true)
            try writeFile(original.segment, original.bytes + [UInt8](repeating: 0, count: 100) + [7])
            let (_, recovery) = try CommitLog.open(storePath: original.store)
            #expect(recovery.records.map(\.version) == [1, 2, 3, 4, 5])
            #expect(recovery.truncatedBytes == 101)
            #expect(try fileSize(original.segment) == UInt64(original.bytes.count))
        }
    }

    @Test("A torn tail in a segment that is not the last one is damage, not a torn tail")
    func tornTailInSealedSegment() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let first = LogSegment.path(storePath: store, sequence: 1)
            let (log, _) = try CommitLog.open(storePath: store)
            try appendRecords(log, versions: 1...2)
            let startOfThird = log.currentSegmentSize
            try appendRecords(log, versions: 3...3)
            try log.sync()
            try log.rotate()
            try appendRecords(log, versions: 4...5)
            try log.sync()

            let bytes = try readFile(first)
            try writeFile(first, Array(bytes.dropLast(3)))
            let error = #expect(throws: StrataError.self) {
                _ = try CommitLog.open(storePath: store)
            }
            #expect(error?.code == .corruptFile)
            #expect(error?.path == first)
            #expect(error?.offset == startOfThird)
            #expect(try fileSize(first) == UInt64(bytes.count - 3), "a damaged sealed segment is not cut")
        }
    }

    @Test(
        "A last segment shorter than its header, or with a zeroed header, is removed, and appends continue in the segment before it",
        arguments: [false, true])
    func shortLastSegmentIsRemoved(zeroed: Bool) throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let first = LogSegment.path(storePath: store, sequence: 1)
            let second = LogSegment.path(storePath: store, sequence: 2)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...3)
                try log.sync()
            }
            let header = LogSegment.header(LogSegment.Header(salt: 5, sequence: 2, storeID: 9, baseVersion: 3))
            try writeFile(second, zeroed ? [UInt8](repeating: 0, count: 4096) : Array(header.prefix(10)))
            let (log, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == [1, 2, 3])
            #expect(!FileSystem.exists(second))
            #expect(log.segmentCount == 1)
            try appendRecords(log, versions: 4...4)
            try log.sync()
            let (_, reopened) = try CommitLog.open(storePath: store)
            #expect(reopened.records.map(\.version) == [1, 2, 3, 4])
            #expect(reopened.records.allSatisfy { $0.path == first })
        }
    }

    @Test("A lone segment shorter than its header is replaced by a fresh segment 1")
    func shortOnlySegment() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let first = LogSegment.path(storePath: store, sequence: 1)
            let header = LogSegment.header(LogSegment.Header(salt: 5, sequence: 1, storeID: 9, baseVersion: 0))
            try writeFile(first, Array(header.prefix(31)))
            let (log, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.isEmpty)
            let bytes = try readFile(first)
            #expect(bytes.count == LogSegment.headerSize)
            #expect(try bytes.withUnsafeBytes { try LogSegment.validateHeader($0, path: first) }.sequence == 1)
            #expect(log.currentSegmentSize == UInt64(LogSegment.headerSize))
        }
    }

    // MARK: - Damage in the middle

    @Test("Flipping any bit position in any byte of durable record 2 of 5 throws corruptFile at record 2's offset")
    func bitFlipsInRecordTwo() throws {
        try withTemporaryDirectory { directory in
            let original = try FiveRecordLog(directory: directory, durable: true)
            let record = original.range(ofVersion: 2)
            #expect(record.count > LogRecord.headerSize, "the test needs a payload")
            for index in record {
                let bit = index % 8
                var damaged = original.bytes
                damaged[index] ^= 1 << bit
                try writeFile(original.segment, damaged)
                let error = #expect(throws: StrataError.self, "byte \(index) bit \(bit)") {
                    _ = try CommitLog.open(storePath: original.store)
                }
                #expect(error?.code == .corruptFile, "byte \(index) bit \(bit)")
                #expect(error?.path == original.segment, "byte \(index) bit \(bit)")
                #expect(error?.offset == UInt64(record.lowerBound), "byte \(index) bit \(bit)")
                #expect(try readFile(original.segment) == damaged, "byte \(index): a damaged log is left as it was")
            }
        }
    }

    @Test(
        "Damage to the first or last byte of durable record 1, 3, 4 or 5 of 5 throws corruptFile at that record's offset",
        arguments: [1, 3, 4, 5])
    func damageInOtherRecords(version: Int) throws {
        try withTemporaryDirectory { directory in
            let original = try FiveRecordLog(directory: directory, durable: true)
            for index in [original.starts[version - 1], original.ends[version - 1] - 1] {
                var damaged = original.bytes
                damaged[index] ^= 0x40
                try writeFile(original.segment, damaged)
                let error = #expect(throws: StrataError.self) {
                    _ = try CommitLog.open(storePath: original.store)
                }
                #expect(error?.code == .corruptFile, "byte \(index)")
                #expect(error?.offset == UInt64(original.starts[version - 1]), "byte \(index)")
            }
        }
    }

    @Test("Damage in the durable part followed only by a valid record with an empty payload is damage, not a torn tail")
    func damageBeforeEmptyLastRecord() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let (log, _) = try CommitLog.open(storePath: store)
            try appendRecords(log, versions: 1...2)
            let startOfThird = log.currentSegmentSize
            try appendRecords(log, versions: 3...3)
            // The last record's header ends exactly at the end of the file.
            try log.append(sealedRecord(version: 4, payload: []))
            try log.sync()
            try log.sync()
            var damaged = try readFile(segment)
            damaged[Int(startOfThird) + LogRecord.headerSize] ^= 0x10
            try writeFile(segment, damaged)
            let error = #expect(throws: StrataError.self) {
                _ = try CommitLog.open(storePath: store)
            }
            #expect(error?.code == .corruptFile)
            #expect(error?.offset == startOfThird)
            #expect(try readFile(segment) == damaged, "the valid record 4 was not cut off")
        }
    }

    @Test("Flipping a bit anywhere in the last, unsynced record is a torn tail: records 1...4 are recovered")
    func bitFlipsInLastRecord() throws {
        try withTemporaryDirectory { directory in
            let original = try FiveRecordLog(directory: directory, durable: false)
            let record = original.range(ofVersion: 5)
            for index in record {
                let bit = (index + 3) % 8
                var damaged = original.bytes
                damaged[index] ^= 1 << bit
                try writeFile(original.segment, damaged)
                let (_, recovery) = try CommitLog.open(storePath: original.store)
                #expect(recovery.records.map(\.version) == [1, 2, 3, 4], "byte \(index) bit \(bit)")
                #expect(recovery.truncatedBytes == UInt64(record.count), "byte \(index) bit \(bit)")
                #expect(try fileSize(original.segment) == UInt64(record.lowerBound), "byte \(index) bit \(bit)")
            }
        }
    }

    @Test("A segment with the wrong magic throws invalidFileFormat")
    func wrongMagic() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let garbage = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 7) }
            try writeFile(segment, garbage)
            let error = #expect(throws: StrataError.self) {
                _ = try CommitLog.open(storePath: store)
            }
            #expect(error?.code == .invalidFileFormat)
            #expect(error?.path == segment)
            #expect(try readFile(segment) == garbage, "a foreign file is not modified")
        }
    }

    @Test("A segment header with a bad checksum throws corruptFile at offset 0")
    func damagedSegmentHeader() throws {
        try withTemporaryDirectory { directory in
            let original = try FiveRecordLog(directory: directory, durable: true)
            for index in 12..<LogSegment.markerOffset {
                var damaged = original.bytes
                damaged[index] ^= 0x01
                try writeFile(original.segment, damaged)
                let error = #expect(throws: StrataError.self) {
                    _ = try CommitLog.open(storePath: original.store)
                }
                #expect(error?.code == .corruptFile, "byte \(index)")
                #expect(error?.offset == 0, "byte \(index)")
            }
        }
    }

    @Test("A format 1 segment (an earlier Strata's) or an unknown format throws invalidFileFormat at offset 8",
          arguments: [UInt32(1), 3])
    func unknownFormatVersion(format: UInt32) throws {
        try withTemporaryDirectory { directory in
            let original = try FiveRecordLog(directory: directory, durable: true)
            // A format 1 header: magic, format, reserved, sequence, reserved, CRC (32 bytes).
            var header = ByteWriter()
            header.writeRaw(LogSegment.magic)
            header.writeFixed(format)
            header.writeFixed(UInt32(0))
            header.writeFixed(UInt64(1))
            header.writeFixed(UInt32(0))
            header.writeFixed(CRC32C.checksum(header.bytes))
            try writeFile(original.segment, header.bytes + original.bytes[LogSegment.headerSize...])
            let error = #expect(throws: StrataError.self) {
                _ = try CommitLog.open(storePath: original.store)
            }
            #expect(error?.code == .invalidFileFormat)
            #expect(error?.offset == 8)
            #expect(error?.path == original.segment)
            #expect(error?.message.contains("format \(format)") == true)
        }
    }

    @Test("A gap in the versions (1, 2, 4) throws corruptFile at the record after the gap")
    func versionGap() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let startOfThird: UInt64
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...2)
                startOfThird = log.currentSegmentSize
                try log.append(sealedRecord(version: 4, payload: samplePayload(4)))
                try log.sync()
            }
            let error = #expect(throws: StrataError.self) {
                _ = try CommitLog.open(storePath: store)
            }
            #expect(error?.code == .corruptFile)
            #expect(error?.path == segment)
            #expect(error?.offset == startOfThird)
        }
    }

    @Test("A segment whose base version is not the checkpoint's version throws corruptFile at offset 32")
    func baseVersionMismatch() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let storeID: UInt64
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                storeID = log.storeID
                try appendRecords(log, versions: 1...3)
                try log.sync()
            }
            for version: UInt64 in [3, 4] {
                let anchor = LogAnchor(storeID: storeID, version: version, firstSegment: 1, path: store)
                let error = #expect(throws: StrataError.self) {
                    _ = try CommitLog.open(storePath: store, anchor: anchor)
                }
                #expect(error?.code == .corruptFile)
                #expect(error?.path == segment)
                #expect(error?.offset == 32)
            }
        }
    }

    @Test("A repeated or backwards version (1, 2, 2) throws corruptFile")
    func repeatedVersion() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let startOfThird: UInt64
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...2)
                startOfThird = log.currentSegmentSize
                try log.append(sealedRecord(version: 2, payload: samplePayload(2)))
                try log.append(sealedRecord(version: 3, payload: samplePayload(3)))
                try log.sync()
            }
            let error = #expect(throws: StrataError.self) {
                _ = try CommitLog.open(storePath: store)
            }
            #expect(error?.code == .corruptFile)
            #expect(error?.offset == startOfThird)
        }
    }
}
