#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import StrataStorage
import StrataSupport

/// The log's own poison (fsyncgate): once one sync fails, whoever called it, nothing syncs,
/// appends or rotates again. Each test arms faults only for its own temporary directory.
@Suite("CommitLog poison")
struct CommitLogPoisonTests {
    @Test("A waiter whose record a failed checkpoint sync covered throws poisoned, though fdatasync would now succeed")
    func failedSyncFromAnotherPathPoisonsWaiter() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let (log, _) = try CommitLog.open(storePath: store)
            let group = GroupCommit(durableVersion: 0)
            let published = LockedValueBox<[UInt64]>([])

            try log.append(sealedRecord(version: 1, payload: [1]))
            group.noteWritten(1)
            // Another path (a checkpoint) syncs the log and meets the one write-back error.
            StorageFaults.shared.failNextSyncs(matching: directory.name)
            let first = #expect(throws: StrataError.self) { try log.sync() }
            #expect(first?.code == .fileAccess)
            #expect(first?.errno == EIO)
            #expect(log.failure?.code == .poisoned)

            // The waiter's own sync would succeed (Linux reports the error once): it must not run.
            let waiter = #expect(throws: StrataError.self) {
                try group.waitUntilDurable(1, sync: log.sync) { version in
                    published.withLockedValue { $0.append(version) }
                }
            }
            #expect(waiter?.code == .poisoned)
            #expect(waiter?.message.contains("injected fault") == true)
            #expect(published.withLockedValue { $0 }.isEmpty)
        }
    }

    @Test("After a failed sync, sync, append and rotate throw poisoned and the segment does not grow")
    func everythingThrowsAfterFailure() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let (log, _) = try CommitLog.open(storePath: store)
            try appendRecords(log, versions: 1...2)
            try log.sync()
            #expect(log.failure == nil)

            StorageFaults.shared.failNextSyncs(matching: directory.name)
            try appendRecords(log, versions: 3...3)
            #expect(throws: StrataError.self) { try log.sync() }
            let size = log.currentSegmentSize

            let operations: [(String, () throws -> Void)] = [
                ("sync", { try log.sync() }), ("append", { try appendRecords(log, versions: 4...4) }),
                ("rotate", { try log.rotate() }),
            ]
            for (name, operation) in operations {
                let error = #expect(throws: StrataError.self, "\(name)") { try operation() }
                #expect(error?.code == .poisoned, "\(name)")
            }
            #expect(log.currentSegmentSize == size)
            #expect(log.segmentCount == 1)
            #expect(try fileSize(LogSegment.path(storePath: store, sequence: 1)) == size)
        }
    }

    @Test("A rotation whose sync of the segment it seals fails poisons the log; reopening recovers every record")
    func failedRotationPoisons() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...3)
                try log.sync()
                try appendRecords(log, versions: 4...4)
                StorageFaults.shared.failNextSyncs(matching: LogSegment.path(storePath: store, sequence: 1))
                let error = #expect(throws: StrataError.self) { try log.rotate() }
                #expect(error?.code == .fileAccess)
                #expect(log.failure?.code == .poisoned)
                #expect(throws: StrataError.self) { try appendRecords(log, versions: 5...5) }
                #expect(throws: StrataError.self) { try log.sync() }
            }
            // Version 4 reached the kernel before the failed sync: the page cache still has it
            // (no power was lost), so recovery finds it.
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == [1, 2, 3, 4])
        }
    }

    @Test("A new log (a reopened store) starts unpoisoned")
    func reopenClearsPoison() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try appendRecords(log, versions: 1...1)
                StorageFaults.shared.failNextSyncs(matching: directory.name)
                #expect(throws: StrataError.self) { try log.sync() }
            }
            let (log, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == [1])
            #expect(log.failure == nil)
            try appendRecords(log, versions: 2...2)
            try log.sync()
        }
    }
}
