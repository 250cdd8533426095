import Foundation
import Strata
import StrataTestSupport
import Testing

final class FilesItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

/// Version 2 of "FilesItem", with a property the migration fills.
final class FilesItemV2: Object {
    override class func className() -> String { "FilesItem" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var label: String
}

private func fileConfig(_ directory: TemporaryDirectory, version: UInt64 = 0,
                        types: [ObjectBase.Type] = [FilesItem.self], block: MigrationBlock? = nil) -> Realm.Configuration {
    Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("files.realm")), schemaVersion: version,
                        migrationBlock: block, objectTypes: types)
}

/// Opens the Realm of `config`, adds an item and releases it.
private func createRealm(_ config: Realm.Configuration) throws {
    let realm = try Realm(configuration: config)
    try realm.write { realm.add(FilesItem(value: ["id": 1, "name": "one"])) }
}

@Suite("Realm files: fileExists, deleteFiles, schemaVersionAtURL, performMigration")
struct RealmFilesTests {
    @Test("fileExists(for:) is false before the Realm is first opened, true after; false for an in-memory Realm")
    func fileExists() throws {
        try withTemporaryDirectory { directory in
            let config = fileConfig(directory)
            #expect(!Realm.fileExists(for: config))
            try createRealm(config)
            #expect(Realm.fileExists(for: config))
        }
        #expect(!Realm.fileExists(for: Realm.Configuration(inMemoryIdentifier: "files-\(UUID().uuidString)")))
    }

    @Test("deleteFiles(for:) deletes the file, its commit log segments, lock file, leftover .tmp and event store, and nothing else")
    func deleteFilesDeletesEverything() throws {
        try withTemporaryDirectory { directory in
            let config = fileConfig(directory)
            try createRealm(config)
            // An interrupted checkpoint's leftover, an event store's files, and unrelated files.
            for name in ["files.realm.tmp", "files.realm.events", "files.realm.events.lock",
                         "files.realm.events.log.0000000000000001", "files.realm.backup", "other.realm"] {
                try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file(name)))
            }
            let before = try directory.entries()
            #expect(before.contains("files.realm.lock"))
            #expect(before.contains { $0.hasPrefix("files.realm.log.") }, "\(before)")
            #expect(try Realm.deleteFiles(for: config))
            #expect(try directory.entries() == ["files.realm.backup", "other.realm"])
            #expect(!Realm.fileExists(for: config))
            #expect(try !Realm.deleteFiles(for: config), "nothing left to delete")
            // The Realm opens empty afterwards.
            #expect(try Realm(configuration: config).objects(FilesItem.self).isEmpty)
        }
    }

    @Test("deleteFiles(for:) throws alreadyOpen while a Realm of the file is open in this process, and deletes nothing")
    func deleteFilesOfOpenRealm() throws {
        try withTemporaryDirectory { directory in
            let config = fileConfig(directory)
            try {
                let realm = try Realm(configuration: config)
                try realm.write { realm.add(FilesItem(value: ["id": 1, "name": "one"])) }
                let before = try directory.entries()
                let error = #expect(throws: Realm.Error.self) { try Realm.deleteFiles(for: config) }
                #expect(error?.code == .alreadyOpen)
                #expect(error?.message == "Cannot delete files of an open Realm: '\(directory.file("files.realm"))' is still in use.")
                #expect(error?.fileURL?.lastPathComponent == "files.realm")
                #expect(try directory.entries() == before)
                #expect(realm.objects(FilesItem.self).count == 1)
                // The Realm still writes: its locks were not dropped.
                try realm.write { realm.add(FilesItem(value: ["id": 2, "name": "two"])) }
            }()
            #expect(try Realm(configuration: config).objects(FilesItem.self).count == 2)
            #expect(try Realm.deleteFiles(for: config), "released, it can be deleted")
        }
    }

    @Test("deleteFiles(for:) succeeds as soon as the last Realm is released, also one whose notifications ran")
    func deleteFilesRightAfterANotifiedRealm() throws {
        try withTemporaryDirectory { directory in
            let config = fileConfig(directory)
            for round in 0..<10 {
                let queue = DispatchQueue(label: "files-notified")
                let changes = DispatchSemaphore(value: 0)
                let realm = try queue.sync { UncheckedBox(try Optional(Realm(configuration: config, queue: queue))) }
                let token = queue.sync {
                    UncheckedBox(realm.value?.objects(FilesItem.self).observe { _ in changes.signal() })
                }
                #expect(changes.wait(timeout: .now() + 10) == .success, "initial")
                try queue.sync {
                    try realm.value?.write { realm.value?.add(FilesItem(value: ["id": round, "name": "n"])) }
                }
                #expect(changes.wait(timeout: .now() + 10) == .success, "the change")
                queue.sync {
                    token.value?.invalidate()
                    token.value = nil
                    realm.value = nil
                }
                // The notifier worker pinned the version it computed: closing must let go of it
                // before returning, or the file still counts as open here.
                #expect(try Realm.deleteFiles(for: config), "round \(round)")
            }
        }
    }

    @Test("deleteFiles(for:) throws alreadyOpen while another process has the Realm open, and deletes nothing")
    func deleteFilesOpenInAnotherProcess() async throws {
        let directory = try TemporaryDirectory.create()
        defer { directory.remove() }
        let config = fileConfig(directory)
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(FilesItem(value: ["id": 1, "name": "one"])) }
        let before = try directory.entries()
        // The child process finds the file through its inherited environment.
        setenv("STRATA_TEST_DELETE_FILES_PATH", directory.file("files.realm"), 1)
        await #expect(processExitsWith: .success) {
            guard let path = ProcessInfo.processInfo.environment["STRATA_TEST_DELETE_FILES_PATH"] else { exit(2) }
            do {
                try Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
                exit(3)
            } catch let error as Realm.Error where error.code == .alreadyOpen {
                exit(0)
            } catch {
                exit(4)
            }
        }
        #expect(try directory.entries() == before)
        // The test may resume on another thread: write through a Realm opened here. The first
        // Realm stays open until then, so the store's locks were held throughout.
        let again = try Realm(configuration: config)
        try again.write { again.add(FilesItem(value: ["id": 2, "name": "two"])) }
        #expect(again.objects(FilesItem.self).count == 2)
        withExtendedLifetime(realm) {}
    }

    @Test("deleteFiles(for:) of an in-memory configuration deletes nothing and returns false")
    func deleteFilesInMemory() throws {
        #expect(try !Realm.deleteFiles(for: Realm.Configuration(inMemoryIdentifier: "files-\(UUID().uuidString)")))
    }

    @Test("schemaVersionAtURL returns the version the file was last opened with, also while it is open")
    func schemaVersion() throws {
        try withTemporaryDirectory { directory in
            try createRealm(fileConfig(directory, version: 3, types: [FilesItem.self]))
            let url = try #require(fileConfig(directory).fileURL)
            #expect(try schemaVersionAtURL(url) == 3)
            let open = try Realm(configuration: fileConfig(directory, version: 3))
            #expect(try schemaVersionAtURL(url) == 3)
            withExtendedLifetime(open) {}
        }
    }

    @Test("schemaVersionAtURL throws invalidDatabase for a missing file, as Realm does, and for a file that is not a Realm")
    func schemaVersionErrors() throws {
        try withTemporaryDirectory { directory in
            let missing = URL(fileURLWithPath: directory.file("missing.realm"))
            let notFound = #expect(throws: Realm.Error.self) { try schemaVersionAtURL(missing) }
            #expect(notFound?.code == .invalidDatabase)
            #expect(!FileManager.default.fileExists(atPath: missing.path), "nothing is created")
            #expect(try directory.entries().isEmpty)

            let text = URL(fileURLWithPath: directory.file("text.realm"))
            try Data(String(repeating: "text\n", count: 100).utf8).write(to: text)
            let invalid = #expect(throws: Realm.Error.self) { try schemaVersionAtURL(text) }
            #expect(invalid?.code == .invalidDatabase)
        }
    }

    @Test("performMigration(for:) runs the migration block once; opening the Realm afterwards runs nothing")
    func performMigration() throws {
        try withTemporaryDirectory { directory in
            try createRealm(fileConfig(directory))
            let log = MigrationLog()
            let block: MigrationBlock = { migration, oldSchemaVersion in
                log.recordCall(oldVersion: oldSchemaVersion)
                migration.enumerateObjects(ofType: "FilesItem") { _, newObject in newObject?["label"] = "migrated" }
            }
            let config = fileConfig(directory, version: 1, types: [FilesItemV2.self], block: block)
            try Realm.performMigration(for: config)
            #expect(log.calls == [0])
            #expect(try schemaVersionAtURL(config.fileURL!) == 1)
            let realm = try Realm(configuration: config)
            #expect(log.calls == [0], "opening a migrated Realm does not migrate again")
            #expect(realm.objects(FilesItemV2.self).map(\.label) == ["migrated"])
        }
    }
}
