#if canImport(Glibc)
import Glibc
#endif
@testable import StrataStorage
import StrataSupport
import Testing

/// Space reserved ahead of the appends (``CommitLog/preallocate(inStepsOf:)``): what the files
/// hold, what recovery and rotation do with it, and a reservation that fails.
@Suite("CommitLog preallocation")
struct CommitLogPreallocationTests {
    static let step: UInt64 = 4096

    @Test("The segment grows a step at a time ahead of its records; the records recover and appends go on after a reopen")
    func reservesAhead() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                log.preallocate(inStepsOf: Self.step)
                for version in UInt64(1)...200 {
                    try appendRecords(log, versions: version...version)
                    let size = try fileSize(segment)
                    #expect(size % Self.step == 0 && size > log.currentSegmentSize, "version \(version)")
                }
                try log.sync()
            }
            let sizeBefore = try fileSize(segment)
            let (log, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == Array(1...200))
            #expect(recovery.records.allSatisfy { $0.payload == samplePayload($0.version) })
            #expect(recovery.truncatedBytes == 0)
            #expect(try fileSize(segment) == sizeBefore, "the reserved space is kept")
            log.preallocate(inStepsOf: Self.step)
            try appendRecords(log, versions: 201...260)
            try log.sync()
            let (_, reopened) = try CommitLog.open(storePath: store)
            #expect(reopened.records.map(\.version) == Array(1...260))
        }
    }

    @Test("A rotation cuts the reserved space off the segment it seals, which then recovers under the strict rules")
    func rotationReleases() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let first = LogSegment.path(storePath: store, sequence: 1)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                log.preallocate(inStepsOf: Self.step)
                try appendRecords(log, versions: 1...10)
                let end = log.currentSegmentSize
                #expect(try fileSize(first) > end)
                try log.rotate()
                #expect(try fileSize(first) == end)
                try appendRecords(log, versions: 11...20)
                #expect(try fileSize(LogSegment.path(storePath: store, sequence: 2)) % Self.step == 0,
                        "the next segment reserves space too")
                try log.sync()
            }
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == Array(1...20))
        }
    }

    @Test("Zeros inside the synced length are damage, not reserved space")
    func zerosInsideSyncedLength() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let (log, _) = try CommitLog.open(storePath: store)
            log.preallocate(inStepsOf: Self.step)
            try appendRecords(log, versions: 1...20)
            try log.sync()
            try appendRecords(log, versions: 21...21)
            try log.sync() // the marker now names every byte of records 1...20
            let recordTwo = LogSegment.headerSize + LogRecord.headerSize + samplePayload(1).count
            var bytes = try readFile(segment)
            let end = Int(log.currentSegmentSize)
            for index in recordTwo..<end { bytes[index] = 0 }
            try writeFile(segment, bytes)
            let error = #expect(throws: StrataError.self) { try CommitLog.open(storePath: store) }
            #expect(error?.code == .corruptFile)
            #expect(error?.offset == UInt64(recordTwo))
        }
    }

    @Test("A reservation that fails changes nothing: the appends grow the file as they go")
    func failedReservation() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let fragment = directory.path + "/"
            StorageFaults.shared.inject(.fail(errno: ENOSPC), on: .allocate, matching: fragment, count: 1_000)
            defer { StorageFaults.shared.removeRules(matching: fragment) }
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                log.preallocate(inStepsOf: Self.step)
                try appendRecords(log, versions: 1...30)
                #expect(try fileSize(segment) == log.currentSegmentSize)
                try log.sync()
            }
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == Array(1...30))
        }
    }
}
