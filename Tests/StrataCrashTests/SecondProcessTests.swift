import Foundation
import StrataEngine
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

        let process = Process()
        process.executableURL = try CrashWorker.locate()
        process.arguments = [path, "full", "65536"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)

        #expect(process.terminationStatus == 1)
        #expect(message.contains("alreadyOpenInAnotherProcess"), "child said: \(message)")
        #expect(store.currentVersion == versionBefore)
        try store.write { tx in _ = try tx.insertObject(into: table, values: [.int(8)]) }
        #expect(store.currentSnapshot.table(table)?.count == 2)
    }
}
