import Foundation
import StrataStorage
import Testing
@testable import StrataEngine

/// Stores written by an earlier Strata (format 1) are upgraded by a read-write open.
@Suite("Store upgrade from format 1")
struct StoreUpgradeTests {
    /// A closed format 1 store at `path` holding items 1...15 (10 in its checkpoint, 5 in its log).
    private func makeFormatOneStore(_ path: String, tear: Int = 0) throws {
        try withStore(.keepingTheLog(path)) { store in
            try insertItems(1...10, into: store)
            try store.checkpoint()
            try insertItems(11...15, into: store)
        }
        try rewriteAsFormatOne(path, tear: tear)
    }

    @Test("a format 1 store opened read-write keeps every commit, is rewritten as a page file, and reopens")
    func upgrade() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("old.strata")
            try makeFormatOneStore(path)
            try withStore(.keepingTheLog(path)) { store in
                #expect(itemCount(store) == 15)
                try insertItems(16...17, into: store)
            }
            #expect(try PageFile.open(path: path).header.checkpoint.firstLogSegment == 6)
            #expect(try CommitLog.segmentPaths(storePath: path) == [path + ".log.0000000000000006"])
            try withStore(.keepingTheLog(path)) { store in #expect(itemCount(store) == 17) }
        }
    }

    @Test("a torn last record of a format 1 log is cut, as format 1 did")
    func tornFormatOneTail() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("torn.strata")
            try makeFormatOneStore(path, tear: 3)
            try withStore(.keepingTheLog(path)) { store in #expect(itemCount(store) == 14) }
        }
    }

    @Test("an upgrade that stopped before its checkpoint (a format 2 segment after the format 1 one) runs again")
    func interruptedUpgrade() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("again.strata")
            try makeFormatOneStore(path)
            try write(Array("STRATLOG".utf8) + [2, 0, 0, 0] + [UInt8](repeating: 7, count: 60),
                      to: path + ".log.0000000000000006")
            try withStore(.keepingTheLog(path)) { store in #expect(itemCount(store) == 15) }
            try withStore(.keepingTheLog(path)) { store in #expect(itemCount(store) == 15) }
        }
    }

    @Test("a format 1 store opened read-only throws invalidFileFormat and is left as it was")
    func readOnlyFormatOne() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("ro.strata")
            try makeFormatOneStore(path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = expectStrataError(.invalidFileFormat) {
                try Store.open(StoreConfiguration(location: .file(path: path), readOnly: true))
            }
            #expect(error?.message.contains("format 1") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try CommitLog.segmentPaths(storePath: path) == [path + ".log.0000000000000005"])
        }
    }
}

/// Stores written by the previous Strata (format 2: a checkpoint file rewritten whole by every
/// checkpoint) are converted to a page file by a read-write open.
@Suite("Store conversion from format 2")
struct StoreFormatTwoConversionTests {
    /// A closed format 2 store at `path` holding items 1...15 (10 in its checkpoint, 5 in its log).
    private func makeFormatTwoStore(_ path: String) throws {
        try withStore(.keepingTheLog(path)) { store in
            try insertItems(1...10, into: store)
            try store.checkpoint()
            try insertItems(11...15, into: store)
        }
        try rewriteAsFormatTwo(path)
        #expect(try CheckpointFile.read(path: path)?.version == 11)
    }

    @Test("a format 2 store opened read-write keeps every commit, becomes a page file, and reopens")
    func conversion() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("two.strata")
            try makeFormatTwoStore(path)
            try withStore(.keepingTheLog(path)) { store in
                #expect(itemCount(store) == 15)
                try insertItems(16...17, into: store)
            }
            let header = try PageFile.open(path: path).header
            #expect(header.checkpoint.logVersion == 16)
            #expect(try CommitLog.segmentPaths(storePath: path) == [path + ".log.0000000000000003"])
            try withStore(.keepingTheLog(path)) { store in
                #expect(itemCount(store) == 17)
                try store.checkpoint()
            }
            try withStore(.keepingTheLog(path)) { store in #expect(itemCount(store) == 17) }
        }
    }

    @Test("a conversion interrupted before its rename (a partial .tmp beside the checkpoint) runs again")
    func interruptedConversion() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("again.strata")
            try makeFormatTwoStore(path)
            try write(Array("half a page file".utf8), to: path + ".tmp")
            try withStore(.keepingTheLog(path)) { store in #expect(itemCount(store) == 15) }
            #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
            #expect(try PageFile.open(path: path).header.generation == 0)
        }
    }

    @Test("a format 2 store opened read-only throws invalidFileFormat and is left as it was")
    func readOnlyFormatTwo() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("ro.strata")
            try makeFormatTwoStore(path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = expectStrataError(.invalidFileFormat) {
                try Store.open(StoreConfiguration(location: .file(path: path), readOnly: true))
            }
            #expect(error?.message.contains("format 2") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }
}
