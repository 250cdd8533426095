import Foundation
import RealmSwift
import Testing

final class CompatNote: Object {
    @Persisted var text: String
}

/// Realm Swift code about errors and files, as apps write it, compiled against `import RealmSwift`
/// alone.
@Suite("RealmSwift module: errors and files")
struct RealmErrorsAndFilesCompatibilityTests {
    @Test("an app's open-or-start-over code compiles and runs: catch by code, switch on code, deleteFiles, schemaVersionAtURL")
    func openOrStartOver() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("realmswift-errors-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("app.realm")
        try Data("not a realm".utf8).write(to: url)
        let migrationBlock: MigrationBlock = { _, _ in }
        let config = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: migrationBlock,
                                         objectTypes: [CompatNote.self])

        var outcome: [String] = []
        do {
            _ = try Realm(configuration: config)
        } catch Realm.Error.incompatibleLockFile {
            outcome.append("lock")
        } catch let error as Realm.Error where error.code == .invalidDatabase || error.code == .schemaMismatch {
            outcome.append("start over: \(error.localizedDescription.isEmpty ? "no message" : "message")")
            if Realm.fileExists(for: config) { try Realm.deleteFiles(for: config) }
        } catch {
            switch (error as? Realm.Error)?.code {
            case .fileAccess?, .filePermissionDenied?: outcome.append("access")
            default: outcome.append("other")
            }
        }
        _ = try Realm(configuration: config)
        try Realm.performMigration(for: config)
        outcome.append("version \(try schemaVersionAtURL(url))")
        #expect(outcome == ["start over: message", "version 2"])
    }
}
