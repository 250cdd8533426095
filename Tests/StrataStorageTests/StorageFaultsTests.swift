#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import StrataStorage
import StrataSupport

/// Fault injection is process-wide, so these tests run one at a time and disarm every fault when
/// they finish; each arms faults only for paths inside its own temporary directory.
@Suite("StorageFaults", .serialized)
struct StorageFaultsTests {
    @Test("failNextSyncs makes the next sync of a matching file fail with EIO, once per armed count")
    func syncFails() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("data")
            let file = try POSIXFile(path: path, mode: .truncate)
            try file.write([1, 2, 3], at: 0)
            try file.sync()

            StorageFaults.shared.failNextSyncs(matching: directory.path, count: 2)
            for attempt in 1...2 {
                let error = #expect(throws: StrataError.self, "attempt \(attempt)") { try file.sync() }
                #expect(error?.code == .fileAccess)
                #expect(error?.errno == EIO)
                #expect(error?.path == path)
            }
            try file.sync()
        }
    }

    @Test("A fault armed for another path leaves this file's sync alone, and reset disarms faults")
    func otherPathsAndReset() throws {
        try withTemporaryDirectory { directory in
            let file = try POSIXFile(path: directory.file("data"), mode: .truncate)
            StorageFaults.shared.failNextSyncs(matching: directory.file("other"))
            try file.sync()
            StorageFaults.shared.failNextSyncs(matching: directory.file("data"))
            StorageFaults.shared.reset(matching: directory.file("data"))
            try file.sync()
        }
    }

    @Test("A failed commit-log sync poisons the group commit with the segment's path")
    func commitLogSyncPoisonsGroup() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            let segment = LogSegment.path(storePath: store, sequence: 1)
            let (log, _) = try CommitLog.open(storePath: store)
            let group = GroupCommit(durableVersion: 0)
            let published = LockedValueBox<[UInt64]>([])
            let publish: (UInt64) -> Void = { version in published.withLockedValue { $0.append(version) } }

            try log.append(sealedRecord(version: 1, payload: [1]))
            group.noteWritten(1)
            try group.waitUntilDurable(1, sync: log.sync, publish: publish)

            StorageFaults.shared.failNextSyncs(matching: segment)
            try log.append(sealedRecord(version: 2, payload: [2]))
            group.noteWritten(2)
            let error = #expect(throws: StrataError.self) {
                try group.waitUntilDurable(2, sync: log.sync, publish: publish)
            }
            #expect(error?.code == .poisoned)
            #expect(error?.path == segment)
            #expect(error?.errno == EIO)

            // The fault is used up, yet the log and the group stay poisoned.
            let append = #expect(throws: StrataError.self) { try log.append(sealedRecord(version: 3, payload: [3])) }
            #expect(append?.code == .poisoned)
            group.noteWritten(3)
            let later = #expect(throws: StrataError.self) {
                try group.waitUntilDurable(3, sync: log.sync, publish: publish)
            }
            #expect(later?.code == .poisoned)
            #expect(published.withLockedValue { $0 } == [1])
        }
    }

    @Test("A failed sync while writing a checkpoint throws fileAccess, removes the .tmp, and leaves the previous checkpoint in place")
    func checkpointWriteFailure() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.checkpoint")
            try CheckpointFile.write(path: path, header: sampleHeader(1), payload: [1, 1, 1])
            StorageFaults.shared.failNextSyncs(matching: path + ".tmp")
            let error = #expect(throws: StrataError.self) {
                try CheckpointFile.write(path: path, header: sampleHeader(2), payload: [2, 2])
            }
            #expect(error?.code == .fileAccess)
            #expect(error?.path == path + ".tmp")
            #expect(!FileSystem.exists(path + ".tmp"), "the partial checkpoint is removed")
            let contents = try CheckpointFile.read(path: path)
            #expect(contents?.version == 1)
            #expect(contents?.payload == [1, 1, 1])
        }
    }

    @Test("Opening a new log whose first segment cannot be synced throws fileAccess")
    func segmentCreationFailure() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            StorageFaults.shared.failNextSyncs(matching: LogSegment.path(storePath: store, sequence: 1))
            let error = #expect(throws: StrataError.self) {
                _ = try CommitLog.open(storePath: store)
            }
            #expect(error?.code == .fileAccess)
        }
    }
}
