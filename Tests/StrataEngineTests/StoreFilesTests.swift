import Foundation
import StrataStorage
import Testing
@testable import StrataEngine

private func copyFile(_ source: String, to destination: String) throws {
    try? FileManager.default.removeItem(atPath: destination)
    try FileManager.default.copyItem(atPath: source, toPath: destination)
}

/// The store's files: what a missing, foreign or mismatched one does to an open.
@Suite("Store files")
struct StoreFilesTests {
    @Test("a new store has a checkpoint naming its first log segment as soon as it is opened")
    func newStoreHasCheckpoint() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("new.strata")
            try withStore(.file(path)) { _ in }
            let header = try PageFile.open(path: path).header
            #expect(header.checkpoint.logVersion == 0)
            #expect(header.checkpoint.firstLogSegment == 1)
            #expect(try CommitLog.segmentPaths(storePath: path) == [path + ".log.0000000000000001"])
        }
    }

    @Test("a .full store reserves at most 64 KiB of log ahead of its commits; a .normal store reserves none",
          arguments: [Durability.full, .normal])
    func logReservation(durability: Durability) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("reserved.strata")
            try withStore(StoreConfiguration.file(path, durability: durability)) { store in
                try insertItems(1...10, into: store)
                let segment = try #require(try CommitLog.segmentPaths(storePath: path).last)
                let size = try POSIXFile(path: segment, mode: .readOnly).size()
                let records = store.statistics.logBytes
                if durability == .full {
                    #expect(size > records && size - records <= 64 << 10, "\(size) bytes for \(records) of records")
                } else {
                    #expect(size == records)
                }
            }
        }
    }

    @Test("opening a file store raises glibc's heap trim threshold, unless the process chose one or malloc refuses it")
    func heapTrimThreshold() throws {
        try withTemporaryDirectory { directory in
            try withStore(.file(directory.file("heap.strata"))) { _ in }
            // AddressSanitizer replaces malloc and refuses mallopt: then nothing is set.
            let accepted = HeapTrimming.setThreshold()
            #expect(HeapTrimming.applied == (!HeapTrimming.chosenByProcess && accepted))
        }
    }

    @Test("deleting the newest log segment makes the next open throw corruptFile naming it",
          arguments: [Durability.full, .normal])
    func deletedNewestSegment(durability: Durability) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("deleted.strata")
            let configuration = StoreConfiguration.file(path, durability: durability)
            try withStore(configuration) { store in
                try insertItems(1...10, into: store)
                try store.checkpoint()
                try insertItems(11...20, into: store)
            }
            let newest = try #require(try CommitLog.segmentPaths(storePath: path).last)
            try FileManager.default.removeItem(atPath: newest)
            let error = expectStrataError(.corruptFile) { try Store.open(configuration) }
            #expect(error?.path == newest)
        }
    }

    @Test("deleting the only log segment of a store that never checkpointed throws corruptFile naming it")
    func deletedOnlySegment() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("only.strata")
            try withStore(.keepingTheLog(path)) { store in try insertItems(1...5, into: store) }
            let segment = path + ".log.0000000000000001"
            try FileManager.default.removeItem(atPath: segment)
            let error = expectStrataError(.corruptFile) { try Store.open(.file(path)) }
            #expect(error?.path == segment)
        }
    }

    @Test("a newer checkpoint with an older log, or an older checkpoint with a newer log, throws corruptFile on the first open")
    func checkpointAndLogMismatch() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("mixed.strata")
            try withStore(.file(path)) { store in
                try insertItems(1...10, into: store)
                try store.checkpoint()
                try insertItems(11...12, into: store)
            }
            let oldSegments = try CommitLog.segmentPaths(storePath: path)
            try copyFile(path, to: path + ".old-checkpoint")
            for segment in oldSegments { try copyFile(segment, to: segment + ".old") }
            try withStore(.file(path)) { store in
                try insertItems(13...20, into: store)
                try store.checkpoint()
                try insertItems(21...22, into: store)
            }
            let newSegments = try CommitLog.segmentPaths(storePath: path)
            #expect(Set(newSegments).isDisjoint(with: oldSegments))

            // The new checkpoint with the old log.
            for segment in newSegments { try copyFile(segment, to: segment + ".new") }
            for segment in newSegments { try FileManager.default.removeItem(atPath: segment) }
            for segment in oldSegments { try copyFile(segment + ".old", to: segment) }
            let newer = expectStrataError(.corruptFile) { try Store.open(.file(path)) }
            #expect(newer?.path == newSegments.first, "\(newer?.message ?? "")")

            // The old checkpoint with the new log.
            for segment in oldSegments { try FileManager.default.removeItem(atPath: segment) }
            for segment in newSegments { try copyFile(segment + ".new", to: segment) }
            try copyFile(path + ".old-checkpoint", to: path)
            let older = expectStrataError(.corruptFile) { try Store.open(.file(path)) }
            #expect(older?.path == oldSegments.first, "\(older?.message ?? "")")
        }
    }

    @Test("a log segment of another store throws corruptFile naming it")
    func segmentOfAnotherStore() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("mine.strata")
            let other = directory.file("other.strata")
            try withStore(.keepingTheLog(path)) { store in try insertItems(1...3, into: store) }
            try withStore(.keepingTheLog(other)) { store in try insertItems(1...3, into: store) }
            let segment = path + ".log.0000000000000001"
            try copyFile(other + ".log.0000000000000001", to: segment)
            let error = expectStrataError(.corruptFile) { try Store.open(.file(path)) }
            #expect(error?.path == segment)
        }
    }

    @Test("a partial .tmp (an interrupted conversion) is removed by a read-write open and left alone by a read-only open")
    func leftoverTemporaryCheckpoint() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("tmp.strata")
            try withStore(.file(path)) { store in try insertItems(1...3, into: store) }
            let temporary = path + ".tmp"
            try Data("half a checkpoint".utf8).write(to: URL(fileURLWithPath: temporary))
            try withStore(StoreConfiguration(location: .file(path: path), readOnly: true)) { store in
                #expect(itemCount(store) == 3)
            }
            #expect(FileManager.default.fileExists(atPath: temporary))
            try withStore(.file(path)) { store in #expect(itemCount(store) == 3) }
            #expect(!FileManager.default.fileExists(atPath: temporary))
        }
    }
}

/// Fault injection is process-wide; these faults match only their own test's files.
@Suite("Store files: a failed checkpoint write")
struct StoreCheckpointFailureTests {
    @Test("a checkpoint whose page writes fail keeps the store writable, the next checkpoint succeeds, and the store reopens with every commit", arguments: [0, 1])
    func failedCheckpointWrite(failedSync: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("full-disk.strata")
            try withStore(.file(path)) { store in
                try insertItems(1...10, into: store)
                // The page file's first sync of the checkpoint (its pages), or its second (the
                // header slot, after which the page file refuses checkpoints until reopened).
                StorageFaults.shared.inject(.fail(errno: EIO), on: .sync, matching: path + "$", skipping: failedSync)
                expectStrataError(.fileAccess) { try store.checkpoint() }
                StorageFaults.shared.removeRules(matching: path + "$")
                try insertItems(11...15, into: store)
                if failedSync == 0 {
                    try store.checkpoint()
                } else {
                    expectStrataError(.poisoned) { try store.checkpoint() }
                }
            }
            try withStore(.file(path)) { store in
                #expect(itemCount(store) == 15)
                try store.checkpoint()
                try insertItems(16...16, into: store)
            }
            try withStore(.file(path)) { store in #expect(itemCount(store) == 16) }
        }
    }
}
