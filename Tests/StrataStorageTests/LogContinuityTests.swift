import Testing
@testable import StrataStorage
import StrataSupport

/// A log of three segments: versions 1...3 in segment 1, 4...6 in segment 2, 7...8 in segment 3
/// (the current one), all synced.
private struct ThreeSegmentLog {
    let store: String
    let storeID: UInt64

    init(directory: TemporaryDirectory, name: String = "store.strata") throws {
        store = directory.file(name)
        let (log, _) = try CommitLog.open(storePath: store)
        storeID = log.storeID
        try appendRecords(log, versions: 1...3)
        try log.rotate()
        try appendRecords(log, versions: 4...6)
        try log.rotate()
        try appendRecords(log, versions: 7...8)
        try log.sync()
    }

    func segment(_ sequence: UInt64) -> String { LogSegment.path(storePath: store, sequence: sequence) }

    func anchor(version: UInt64, firstSegment: UInt64) -> LogAnchor {
        LogAnchor(storeID: storeID, version: version, firstSegment: firstSegment, path: store)
    }
}

/// Expects `body` to throw corruptFile naming `path`.
private func expectCorruption(naming path: String, _ body: () throws -> Void,
                              sourceLocation: SourceLocation = #_sourceLocation) {
    let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == .corruptFile, sourceLocation: sourceLocation)
    #expect(error?.path == path, "\(error?.message ?? "")", sourceLocation: sourceLocation)
}

@Suite("Commit log continuity: missing or foreign segments")
struct LogContinuityTests {
    // MARK: - Damage

    @Test("A missing middle segment throws corruptFile naming it")
    func missingMiddleSegment() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            try FileSystem.remove(log.segment(2))
            expectCorruption(naming: log.segment(2)) { _ = try CommitLog.open(storePath: log.store) }
            #expect(FileSystem.exists(log.segment(3)), "nothing is deleted")
        }
    }

    @Test("A missing newest segment after a sealed one throws corruptFile naming the missing segment")
    func missingNewestSegment() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            try FileSystem.remove(log.segment(3))
            expectCorruption(naming: log.segment(3)) { _ = try CommitLog.open(storePath: log.store) }
            expectCorruption(naming: log.segment(3)) {
                _ = try CommitLog.open(storePath: log.store, anchor: log.anchor(version: 3, firstSegment: 2))
            }
        }
    }

    @Test("A missing first segment throws corruptFile naming it, with or without a checkpoint")
    func missingFirstSegment() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            try FileSystem.remove(log.segment(1))
            expectCorruption(naming: log.segment(1)) { _ = try CommitLog.open(storePath: log.store) }
            try FileSystem.remove(log.segment(2))
            try FileSystem.remove(log.segment(3))
            expectCorruption(naming: log.segment(3)) {
                _ = try CommitLog.open(storePath: log.store, anchor: log.anchor(version: 6, firstSegment: 3))
            }
        }
    }

    @Test("A checkpoint newer than the log (it names a segment after the last one) throws corruptFile naming it, and deletes nothing")
    func checkpointNewerThanLog() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            expectCorruption(naming: log.segment(4)) {
                _ = try CommitLog.open(storePath: log.store, anchor: log.anchor(version: 8, firstSegment: 4))
            }
            #expect(try CommitLog.segmentPaths(storePath: log.store) == (1...3).map(log.segment))
        }
    }

    @Test("A checkpoint whose version is not where its first segment starts throws corruptFile naming the segment")
    func checkpointVersionMismatch() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            expectCorruption(naming: log.segment(2)) {
                _ = try CommitLog.open(storePath: log.store, anchor: log.anchor(version: 5, firstSegment: 2))
            }
        }
    }

    @Test("A segment of another store throws corruptFile naming it")
    func segmentOfAnotherStore() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory, name: "a.strata")
            let other = try ThreeSegmentLog(directory: directory, name: "b.strata")
            try writeFile(log.segment(2), try readFile(other.segment(2)))
            expectCorruption(naming: log.segment(2)) { _ = try CommitLog.open(storePath: log.store) }
            let wrongID = LogAnchor(storeID: other.storeID, version: 3, firstSegment: 2, path: log.store)
            try writeFile(log.segment(2), try readFile(other.segment(2)))
            expectCorruption(naming: log.segment(3)) { _ = try CommitLog.open(storePath: log.store, anchor: wrongID) }
        }
    }

    @Test("A newest segment with a zeroed header after a sealed segment is corruption, not an interrupted creation")
    func zeroedSegmentAfterSealed() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            try writeFile(log.segment(3), [UInt8](repeating: 0, count: 100))
            expectCorruption(naming: log.segment(3)) { _ = try CommitLog.open(storePath: log.store) }
        }
    }

    // MARK: - Legitimate states

    @Test("A crash after creating a new segment, before writing to it, opens with every record")
    func emptyNewestSegment() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            do {
                let (reopened, _) = try CommitLog.open(storePath: log.store)
                try reopened.rotate()
            }
            let (reopened, recovery) = try CommitLog.open(storePath: log.store)
            #expect(recovery.records.map(\.version) == Array(1...8))
            #expect(reopened.currentSequence == 4)
            #expect(reopened.lastVersion == 8)
        }
    }

    @Test("A crash while creating a segment (header never written) opens: the empty file is removed")
    func interruptedCreation() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            for bytes in [[UInt8](), [UInt8](repeating: 0, count: 4096)] {
                try writeFile(log.segment(4), bytes)
                let (reopened, recovery) = try CommitLog.open(storePath: log.store)
                #expect(recovery.records.map(\.version) == Array(1...8))
                #expect(!FileSystem.exists(log.segment(4)))
                #expect(reopened.currentSequence == 3)
            }
        }
    }

    @Test("A crash between the checkpoint's rename and the deletion of the segments it covers opens, and deletes them")
    func coveredSegmentsLeftBehind() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            let (reopened, recovery) = try CommitLog.open(storePath: log.store,
                                                          anchor: log.anchor(version: 6, firstSegment: 3))
            #expect(recovery.records.map(\.version) == [7, 8])
            #expect(try CommitLog.segmentPaths(storePath: log.store) == [log.segment(3)])
            #expect(reopened.segmentCount == 1)
        }
    }

    @Test("A fresh store, and a store whose only segment was never written, open empty")
    func freshAndNeverWritten() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let storeID: UInt64
            do {
                let (log, recovery) = try CommitLog.open(storePath: store)
                #expect(recovery.records.isEmpty)
                storeID = log.storeID
            }
            let (log, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.isEmpty)
            #expect(log.storeID == storeID)
            let anchored = LogAnchor(storeID: storeID, version: 0, firstSegment: 1, path: store)
            #expect(try CommitLog.open(storePath: store, anchor: anchored).1.records.isEmpty)
        }
    }

    @Test("A rotation whose new segment cannot be synced removes it and poisons the log; reopening recovers every record")
    func failedRotation() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            do {
                let (reopened, _) = try CommitLog.open(storePath: log.store)
                StorageFaults.shared.failNextSyncs(matching: log.segment(4))
                #expect(throws: StrataError.self) { try reopened.rotate() }
                #expect(!FileSystem.exists(log.segment(4)))
                #expect(reopened.failure?.code == .poisoned)
                #expect(throws: StrataError.self) { try appendRecords(reopened, versions: 9...9) }
            }
            let (again, recovery) = try CommitLog.open(storePath: log.store)
            #expect(recovery.records.map(\.version) == Array(1...8))
            try appendRecords(again, versions: 9...10)
            try again.sync()
            #expect(try CommitLog.open(storePath: log.store).1.records.map(\.version) == Array(1...10))
        }
    }

    @Test("An empty newest segment left by a failed rotation (stale base version or damaged header) is removed; with records it is corruption")
    func abandonedRotation() throws {
        try withTemporaryDirectory { directory in
            let log = try ThreeSegmentLog(directory: directory)
            let stale = LogSegment.header(LogSegment.Header(salt: 3, sequence: 4, storeID: log.storeID, baseVersion: 7))
            try writeFile(log.segment(4), stale)
            let (reopened, recovery) = try CommitLog.open(storePath: log.store)
            #expect(recovery.records.map(\.version) == Array(1...8))
            #expect(!FileSystem.exists(log.segment(4)))
            #expect(reopened.currentSequence == 3)

            var damaged = stale
            damaged[20] ^= 0xFF
            try writeFile(log.segment(4), Array(damaged))
            #expect(try CommitLog.open(storePath: log.store).1.records.map(\.version) == Array(1...8))
            #expect(!FileSystem.exists(log.segment(4)), "a header a failed write left damaged holds nothing either")

            try writeFile(log.segment(4), stale + sealedRecord(version: 8, payload: [8]))
            expectCorruption(naming: log.segment(4)) { _ = try CommitLog.open(storePath: log.store) }
        }
    }
}
