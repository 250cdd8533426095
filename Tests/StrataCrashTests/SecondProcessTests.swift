import Foundation
import StrataEngine
import StrataStorage
import StrataSupport
import Testing

@Suite("A second process")
struct SecondProcessTests {
    @Test("opening a store another process holds fails with alreadyOpenInAnotherProcess and changes nothing")
    func secondProcessIsRefused() throws {
        let directory = try TemporaryDirectory.create()
        defer { directory.remove() }
        let path = directory.path + "/shared.strata"
        let store = try Store.open(.file(path))
        let table = try store.write { tx in
            try tx.createTable(TableSchema(name: "Item", columns: [ColumnSchema("value", .int)]))
        }
        try store.write { tx in _ = try tx.insertObject(into: table, values: [.int(7)]) }
        let versionBefore = store.currentVersion

        Self.expectRefused(Self.probeOpen(path), "while this process holds it")
        #expect(store.currentVersion == versionBefore)
        try store.write { tx in _ = try tx.insertObject(into: table, values: [.int(8)]) }
        #expect(store.currentSnapshot.table(table)?.count == 2)
    }

    @Test("with the lock file deleted while a process writes the store, a second process still gets alreadyOpenInAnotherProcess, and the writer's acknowledged commits all survive")
    func deletedLockFileStillGuards() throws {
        let directory = try TemporaryDirectory.create()
        defer { directory.remove() }
        let path = directory.path + "/guarded.strata"

        // Process A commits with a small checkpoint threshold, so its checkpoint file is replaced
        // (and its lock moved) many times while B tries to get in.
        let writer = Process()
        writer.executableURL = try CrashWorker.locate()
        writer.arguments = [path, "full", "4096"]
        writer.environment = childProcessEnvironment()
        let output = Pipe()
        writer.standardOutput = output
        try writer.run()
        let reader = output.fileHandleForReading
        var text = ""
        func readAcks(atLeast count: Int) {
            while text.split(separator: "\n").filter({ $0.hasPrefix("ack ") }).count < count {
                let chunk = reader.availableData
                if chunk.isEmpty { return }
                text += String(decoding: chunk, as: UTF8.self)
            }
        }
        readAcks(atLeast: 50)
        try FileManager.default.removeItem(atPath: path + ".lock")

        // Process B: another process opening the same store.
        Self.expectRefused(Self.probeOpen(path), "with its lock file deleted")

        // And this process, many times while A keeps checkpointing, read-write and read-only.
        for attempt in 0..<20 {
            readAcks(atLeast: 60 + attempt * 5)
            let configuration = StoreConfiguration(location: .file(path: path), readOnly: attempt % 2 == 1)
            let error = #expect(throws: StrataError.self, "attempt \(attempt)") { _ = try Store.open(configuration) }
            #expect(error?.code == .alreadyOpenInAnotherProcess, "attempt \(attempt): \(String(describing: error))")
        }

        kill(writer.processIdentifier, SIGKILL)
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        #expect(writer.finish(within: .seconds(60)) == -SIGKILL)
        let acknowledged = text.split(separator: "\n").compactMap {
            $0.hasPrefix("ack ") ? Int64($0.dropFirst(4)) : nil
        }
        #expect(acknowledged.count >= 150)

        let store = try Store.open(.file(path))
        let counters = try #require(store.currentSnapshot.tableKey(named: "Counter"))
        let table = try #require(store.currentSnapshot.table(counters))
        let key = try #require(table.object(forPrimaryKey: .int(1)))
        guard case .int(let counter) = table.row(key)?.values[1] else {
            Issue.record("counter 1 is missing")
            return
        }
        #expect(counter >= acknowledged.last ?? 0, "every acknowledged commit survives")
    }

    @Test("with the lock file deleted, a second process that opens the store just after a compaction renamed its new page file into place is refused, and the compaction completes")
    func compactionRenameLeavesNoWindow() throws {
        let directory = try TemporaryDirectory.create()
        defer { directory.remove() }
        let (store, table, path) = try Self.storeWithoutLockFile(in: directory)

        // The rename is followed by a sync of the directory: the probe runs there, when the new
        // page file is at `path` (a new inode) and the compaction has not returned yet.
        let original = try #require(FileSystem.identity(of: path))
        let probe = LockedValueBox<ProbeResult?>(nil)
        StorageFaults.shared.interceptSyncs(matching: directory.name) { synced in
            guard synced == directory.path, FileSystem.identity(of: path) != original,
                  probe.withLockedValue({ $0 == nil }) else { return false }
            let result = Self.probeOpen(path)
            probe.withLockedValue { $0 = result }
            return false
        }
        defer { StorageFaults.shared.reset(matching: directory.name) }
        try store.compact()
        StorageFaults.shared.reset(matching: directory.name)

        let result = try #require(probe.withLockedValue { $0 }, "the compaction renamed no new file over the store")
        Self.expectRefused(result, "in the middle of its compaction")
        try store.write { tx in _ = try tx.insertObject(into: table, values: [.int(100)]) }
        #expect(store.currentSnapshot.table(table)?.count == 101)
    }

    @Test("a compaction whose directory sync fails after the rename keeps the new file locked, refuses checkpoints until reopened, and loses no commit")
    func compactionFailingAfterRename() throws {
        let directory = try TemporaryDirectory.create()
        defer { directory.remove() }
        let path = directory.path + "/compacted.strata"
        let table: TableKey
        weak var released: Store?
        do {
            let store: Store
            (store, table, _) = try Self.storeWithoutLockFile(in: directory)
            released = store
            let original = try #require(FileSystem.identity(of: path))
            StorageFaults.shared.interceptSyncs(matching: directory.name) { synced in
                synced == directory.path && FileSystem.identity(of: path) != original
            }
            defer { StorageFaults.shared.reset(matching: directory.name) }
            let failure = #expect(throws: StrataError.self) { try store.compact() }
            StorageFaults.shared.reset(matching: directory.name)
            #expect(failure?.code == .fileAccess)
            #expect(FileSystem.identity(of: path) != original, "the new file is in place")

            // The new file at `path` stays locked although the compaction failed.
            Self.expectRefused(Self.probeOpen(path), "after the failed compaction")
            // Commits go on; a checkpoint, which would trim the log the new file needs, is refused.
            try store.write { tx in _ = try tx.insertObject(into: table, values: [.int(100)]) }
            let refusal = #expect(throws: StrataError.self) { try store.checkpoint() }
            #expect(refusal?.code == .poisoned)
            try store.write { tx in _ = try tx.insertObject(into: table, values: [.int(101)]) }
        }
        #expect(waitUntil(timeout: 20) { released == nil }, "the store was not released")

        let reopened = try Store.open(.file(path))
        #expect(reopened.currentSnapshot.table(table)?.count == 102)
        try reopened.checkpoint()
        try reopened.write { tx in _ = try tx.insertObject(into: table, values: [.int(102)]) }
    }

    /// A store at `directory/compacted.strata` holding 100 rows of `Item`, open, with its lock
    /// file deleted.
    private static func storeWithoutLockFile(
        in directory: TemporaryDirectory
    ) throws -> (store: Store, table: TableKey, path: String) {
        let path = directory.path + "/compacted.strata"
        let store = try Store.open(.file(path))
        let table = try store.write { tx in
            try tx.createTable(TableSchema(name: "Item", columns: [ColumnSchema("value", .int)]))
        }
        for value in Int64(0)..<100 { try store.write { tx in _ = try tx.insertObject(into: table, values: [.int(value)]) } }
        try FileManager.default.removeItem(atPath: path + ".lock")
        return (store, table, path)
    }

    typealias ProbeResult = (status: Int32?, message: String)

    /// Expects the probe to have been refused with alreadyOpenInAnotherProcess; `when` says when
    /// it ran.
    private static func expectRefused(
        _ result: ProbeResult, _ when: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 1, "the second process opened the store \(when) (exit status \(String(describing: result.status)))",
                sourceLocation: sourceLocation)
        #expect(result.message.contains("alreadyOpenInAnotherProcess"), "second process said: \(result.message)",
                sourceLocation: sourceLocation)
    }

    /// Runs the crash worker's `open` probe on `path` in a child process: its exit status (nil
    /// when it did not finish within 60 s) and its standard error.
    private static func probeOpen(_ path: String) -> ProbeResult {
        let second = Process()
        let errors = Pipe()
        second.standardError = errors
        second.standardOutput = Pipe()
        second.arguments = [path, "open"]
        second.environment = childProcessEnvironment()
        do {
            second.executableURL = try CrashWorker.locate()
            try second.run()
        } catch {
            return (nil, "the probe did not start: \(error)")
        }
        let status = second.finish(within: .seconds(60))
        return (status, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
