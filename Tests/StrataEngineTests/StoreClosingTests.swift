import Foundation
import StrataStorage
import StrataSupport
import StrataTestSupport
import Testing
@testable import StrataEngine

/// When a store closes: once nothing uses it, even while a background checkpoint of it runs.
@Suite("Store closing", .serialized)
struct StoreClosingTests {
    @Test("deleteFiles waits for a background checkpoint that outlives the store's last user, then deletes")
    func deleteFilesWaitsForABackgroundCheckpoint() throws {
        try withTemporaryDirectory(prefix: "strata-closing") { directory in
            let path = directory.file("bg.strata")
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let armed = LockedValueBox(false)
            // Holds the background checkpoint in the sync of its pages (the page file itself,
            // not a log segment), once armed.
            StorageFaults.shared.interceptSyncs(matching: directory.name + "/bg.strata") { syncing in
                guard syncing.hasSuffix("/bg.strata") else { return false }
                let take = armed.withLockedValue { armed -> Bool in
                    defer { armed = false }
                    return armed
                }
                guard take else { return false }
                entered.signal()
                release.wait()
                return false
            }
            defer { StorageFaults.shared.reset(matching: directory.name + "/bg.strata") }
            try {
                let store = try Store.open(StoreConfiguration(location: .file(path: path), durability: .normal,
                                                              checkpointThreshold: 1))
                let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
                armed.withLockedValue { $0 = true }
                _ = try store.write { try $0.insertObject(into: table, values: [.int(1)]) }
                // The write started a background checkpoint; the store's last user lets go
                // while it runs.
                #expect(entered.wait(timeout: .now() + 10) == .success, "no background checkpoint started")
            }()
            let outcome = LockedValueBox<Result<Bool, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let result = Result { try Store.deleteFiles(atPath: path) }
                outcome.withLockedValue { $0 = result }
                done.signal()
            }
            // Absence over a window: a deleteFiles that did not wait would have thrown at once.
            #expect(done.wait(timeout: .now() + 0.3) == .timedOut, "deleteFiles did not wait for the checkpoint")
            release.signal()
            #expect(done.wait(timeout: .now() + 10) == .success)
            let deleted = try outcome.withLockedValue { try $0?.get() }
            #expect(deleted == true)
            #expect(!FileSystem.exists(path))
        }
    }
}
