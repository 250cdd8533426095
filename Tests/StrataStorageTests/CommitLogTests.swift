#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import StrataStorage
import StrataSupport

/// Writes three records to a log whose store path is a bare file name (relative to the working
/// directory), reopens it, and returns an exit status: 0 when the three records come back,
/// 2 when `segmentPaths` does not find the segment, 3 when recovery lost the records, 4 when the
/// segment file was emptied, 1 when something threw. Runs in a child process, because it changes
/// the working directory.
private func relativeStorePathStatus() -> Int32 {
    do {
        return try withTemporaryDirectory { directory -> Int32 in
            guard chdir(directory.path) == 0 else { return 1 }
            let store = "store.strata"
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...3)
                try log.sync()
            }
            let sizeBefore = try fileSize(directory.file("") + LogSegment.path(storePath: store, sequence: 1))
            guard try CommitLog.segmentPaths(storePath: store).count == 1 else { return 2 }
            let (_, recovery) = try CommitLog.open(storePath: store)
            guard recovery.records.map(\.version) == [1, 2, 3] else { return 3 }
            let sizeAfter = try fileSize(directory.file("") + LogSegment.path(storePath: store, sequence: 1))
            return sizeAfter == sizeBefore ? 0 : 4
        }
    } catch {
        return 1
    }
}

@Suite("CommitLog")
struct CommitLogTests {
    @Test("Opening the log of a new store creates segment 1 holding only its header")
    func openCreatesFirstSegment() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let (log, recovery) = try CommitLog.open(storePath: store)
            let first = LogSegment.path(storePath: store, sequence: 1)
            #expect(first == store + ".log.0000000000000001")
            #expect(try CommitLog.segmentPaths(storePath: store) == [first])
            #expect(recovery.records.isEmpty)
            #expect(recovery.truncatedBytes == 0)
            #expect(log.segmentCount == 1)
            #expect(log.currentSegmentSize == UInt64(LogSegment.headerSize))
            let bytes = try readFile(first)
            #expect(bytes.count == LogSegment.headerSize)
            #expect(Array(bytes[0..<8]) == Array("STRATLOG".utf8))
            let header = try bytes.withUnsafeBytes { try LogSegment.validateHeader($0, path: first) }
            #expect(header.sequence == 1)
            #expect(header.baseVersion == 0)
            #expect(header.storeID == log.storeID)
            #expect(log.storeID != 0)
            let marker = bytes.withUnsafeBytes { LogSegment.readMarker($0) }
            #expect(marker == LogSegment.Marker(durableLength: UInt64(LogSegment.headerSize), sealed: false))
        }
    }

    @Test("Appended records come back on reopen in order, with exact payloads, paths and offsets")
    func appendAndReopen() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let count: UInt64 = 25
            var expectedOffsets: [UInt64] = []
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                for version in 1...count {
                    expectedOffsets.append(log.currentSegmentSize)
                    let record = sealedRecord(version: version, payload: samplePayload(version))
                    #expect(record.count == LogRecord.headerSize + samplePayload(version).count)
                    try log.append(record)
                }
                try log.sync()
                #expect(log.currentSegmentSize == (try fileSize(segment)))
            }
            let (log, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.truncatedBytes == 0)
            #expect(recovery.records.map(\.version) == Array(1...count))
            for record in recovery.records {
                #expect(record.payload == samplePayload(record.version), "version \(record.version)")
                #expect(record.path == segment)
            }
            #expect(recovery.records.map(\.offset) == expectedOffsets)
            #expect(expectedOffsets.first == UInt64(LogSegment.headerSize))
            #expect(log.currentSegmentSize == (try fileSize(segment)))
            #expect(log.segmentCount == 1)
        }
    }

    @Test(
        "Reopening with a checkpoint anchor that names segment 2 returns only its records and deletes segment 1",
        arguments: [UInt64(1), 9, 20])
    func anchorSelectsSegments(checkpointVersion: UInt64) throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let storeID: UInt64
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                storeID = log.storeID
                try appendRecords(log, versions: 1...checkpointVersion)
                try log.rotate()
                if checkpointVersion < 20 { try appendRecords(log, versions: (checkpointVersion + 1)...20) }
                try log.sync()
            }
            let anchor = LogAnchor(storeID: storeID, version: checkpointVersion, firstSegment: 2, path: store)
            let (log, recovery) = try CommitLog.open(storePath: store, anchor: anchor)
            let expected = checkpointVersion < 20 ? Array((checkpointVersion + 1)...20) : []
            #expect(recovery.records.map(\.version) == expected)
            for record in recovery.records {
                #expect(record.payload == samplePayload(record.version))
            }
            #expect(recovery.truncatedBytes == 0)
            #expect(try CommitLog.segmentPaths(storePath: store) == [LogSegment.path(storePath: store, sequence: 2)])
            #expect(log.lastVersion == 20)
        }
    }

    @Test("After rotate, records spread over two segments come back in order and appends continue in the second")
    func rotateAndRecover() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let first = LogSegment.path(storePath: store, sequence: 1)
            let second = LogSegment.path(storePath: store, sequence: 2)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...5)
                try log.sync()
                try log.rotate()
                #expect(log.segmentCount == 2)
                #expect(log.currentSegmentSize == UInt64(LogSegment.headerSize))
                try appendRecords(log, versions: 6...9)
                try log.sync()
                #expect(log.currentSegmentSize == (try fileSize(second)))
            }
            #expect(try CommitLog.segmentPaths(storePath: store) == [first, second])
            let secondHeader = try readFile(second).withUnsafeBytes { try LogSegment.validateHeader($0, path: second) }
            #expect(secondHeader.sequence == 2)
            #expect(secondHeader.baseVersion == 5)

            let (log, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == Array(1...9))
            let expectedPaths = Array(repeating: first, count: 5) + Array(repeating: second, count: 4)
            #expect(recovery.records.map(\.path) == expectedPaths)
            for record in recovery.records {
                #expect(record.payload == samplePayload(record.version))
            }
            #expect(log.segmentCount == 2)

            let sizeOfFirst = try fileSize(first)
            try appendRecords(log, versions: 10...10)
            try log.sync()
            #expect(try fileSize(first) == sizeOfFirst)
            #expect(log.currentSegmentSize == (try fileSize(second)))
            let (_, again) = try CommitLog.open(storePath: store)
            #expect(again.records.map(\.version) == Array(1...10))
            #expect(again.records.last?.path == second)
        }
    }

    @Test("Rotating after reopen numbers the new segment after the last one on disk")
    func rotateAfterReopen() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...2)
                try log.sync()
                try log.rotate()
                try appendRecords(log, versions: 3...4)
                try log.sync()
            }
            let (log, _) = try CommitLog.open(storePath: store)
            try log.rotate()
            try appendRecords(log, versions: 5...6)
            try log.sync()
            #expect(
                try CommitLog.segmentPaths(storePath: store)
                    == (1...3).map {
                        LogSegment.path(storePath: store, sequence: $0)
                    })
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == Array(1...6))
        }
    }

    @Test("removeSealedSegments deletes every segment but the current one; recovery then needs the checkpoint")
    func removeSealedSegments() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let third = LogSegment.path(storePath: store, sequence: 3)
            let storeID: UInt64
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                storeID = log.storeID
                try appendRecords(log, versions: 1...3)
                try log.sync()
                try log.rotate()
                try appendRecords(log, versions: 4...6)
                try log.sync()
                try log.rotate()
                try appendRecords(log, versions: 7...8)
                try log.sync()
                #expect(log.segmentCount == 3)
                try log.removeSealedSegments()
                #expect(log.segmentCount == 1)
                #expect(try CommitLog.segmentPaths(storePath: store) == [third])
                // Appends still go to the current segment.
                try appendRecords(log, versions: 9...9)
                try log.sync()
                #expect(log.currentSegmentSize == (try fileSize(third)))
            }
            let anchor = LogAnchor(storeID: storeID, version: 6, firstSegment: 3, path: store)
            let (log, recovery) = try CommitLog.open(storePath: store, anchor: anchor)
            #expect(recovery.records.map(\.version) == [7, 8, 9])
            #expect(recovery.records.allSatisfy { $0.path == third })
            #expect(log.segmentCount == 1)

            // Without the checkpoint that covers versions 1...6 the history has a hole.
            let error = #expect(throws: StrataError.self) {
                _ = try CommitLog.open(storePath: store)
            }
            #expect(error?.code == .corruptFile)
            #expect(error?.path == LogSegment.path(storePath: store, sequence: 1))
        }
    }

    @Test("removeSealedSegments with a single segment removes nothing")
    func removeSealedSegmentsSingle() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let (log, _) = try CommitLog.open(storePath: store)
            try appendRecords(log, versions: 1...3)
            try log.sync()
            try log.removeSealedSegments()
            #expect(log.segmentCount == 1)
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == [1, 2, 3])
        }
    }

    @Test("segmentPaths lists only this store's segments, sorted; removeAll deletes exactly those")
    func segmentPathsAndRemoveAll() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let unrelated = [
                store,
                store + ".log",
                store + ".log.tmp",
                store + ".log.000000000000001",  // 15 digits
                store + ".log.000000000000000g",  // not hex
                store + ".log.00000000000000010",  // 17 digits
                directory.file("other.strata.log.0000000000000001"),
            ]
            for path in unrelated { try writeFile(path, [1, 2, 3]) }
            let (log, _) = try CommitLog.open(storePath: store)
            try log.rotate()
            try log.rotate()
            let expected = (1...3).map { LogSegment.path(storePath: store, sequence: $0) }
            #expect(try CommitLog.segmentPaths(storePath: store) == expected)

            try CommitLog.removeAll(storePath: store)
            #expect(try CommitLog.segmentPaths(storePath: store).isEmpty)
            for path in unrelated { #expect(FileSystem.exists(path), "\(path) was kept") }
        }
    }

    @Test("A store path that is a bare file name finds its segments on reopen and keeps their records")
    func relativeStorePath() async {
        await #expect(processExitsWith: .success) {
            exit(relativeStorePathStatus())
        }
    }

    @Test("Segment names sort by sequence, including sequences with hex letters")
    func segmentNaming() {
        #expect(LogSegment.path(storePath: "/x/s", sequence: 0xAB) == "/x/s.log.00000000000000ab")
        #expect(LogSegment.path(storePath: "/x/s", sequence: UInt64.max) == "/x/s.log.ffffffffffffffff")
        let names = [UInt64(9), 10, 0xF, 0x10, 255, 256].map { LogSegment.path(storePath: "s", sequence: $0) }
        #expect(names.sorted() == names)
    }
}
