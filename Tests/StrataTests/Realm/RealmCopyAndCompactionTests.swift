import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Runs `body`, whose Realms are released when it returns.
private func inScope(_ body: () throws -> Void) rethrows { try body() }

final class CopyItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var payload: String
}

private func copyConfig(_ directory: TemporaryDirectory, _ name: String = "copy.realm",
                        shouldCompact: Realm.ShouldCompactOnLaunch? = nil) -> Realm.Configuration {
    Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file(name)), shouldCompactOnLaunch: shouldCompact,
                        objectTypes: [CopyItem.self])
}

/// Adds items `ids`, each with a 1,000-byte payload, in one write.
private func addItems(_ ids: ClosedRange<Int>, to realm: Realm) throws {
    try realm.write {
        for id in ids { realm.add(CopyItem(value: ["id": id, "payload": String(repeating: "p", count: 1000)])) }
    }
}

/// The `(totalBytes, usedBytes)` calls a `shouldCompactOnLaunch` block received.
private final class CompactCalls: Sendable {
    let calls = LockedCalls()
    func block(answer: Bool) -> Realm.ShouldCompactOnLaunch {
        { [calls] total, used in
            calls.append((total, used))
            return answer
        }
    }
}

private final class LockedCalls: @unchecked Sendable {
    // Safety: every access holds `lock`.
    private let lock = NSLock()
    private var values: [(Int, Int)] = []
    func append(_ value: (Int, Int)) { lock.withLock { values.append(value) } }
    var all: [(Int, Int)] { lock.withLock { values } }
}

@Suite("Realm.writeCopy")
struct RealmWriteCopyTests {
    @Test("writeCopy(toFile:) writes a Realm of its own holding the objects; later writes to the source do not reach it")
    func writeCopyToFile() throws {
        try withTemporaryDirectory { directory in
            let copyURL = URL(fileURLWithPath: directory.file("backup.realm"))
            try inScope {
                let realm = try Realm(configuration: copyConfig(directory))
                try addItems(1...50, to: realm)
                try realm.writeCopy(toFile: copyURL)
                try addItems(51...60, to: realm)
            }
            var config = copyConfig(directory)
            config.fileURL = copyURL
            let copy = try Realm(configuration: config)
            #expect(copy.objects(CopyItem.self).count == 50)
            #expect(copy.object(ofType: CopyItem.self, forPrimaryKey: 50)?.payload.count == 1000)
            try addItems(61...61, to: copy)
            #expect(copy.objects(CopyItem.self).count == 51)
        }
    }

    @Test("inside a write, writeCopy writes what the transaction has written so far")
    func writeCopyInsideWrite() throws {
        try withTemporaryDirectory { directory in
            let copyURL = URL(fileURLWithPath: directory.file("mid-write.realm"))
            let realm = try Realm(configuration: copyConfig(directory))
            try addItems(1...3, to: realm)
            try realm.write {
                realm.add(CopyItem(value: ["id": 4, "payload": "uncommitted"]))
                try realm.writeCopy(toFile: copyURL)
                realm.cancelWrite()
            }
            #expect(realm.objects(CopyItem.self).count == 3)
            var config = copyConfig(directory)
            config.fileURL = copyURL
            let copy = try Realm(configuration: config)
            #expect(copy.object(ofType: CopyItem.self, forPrimaryKey: 4)?.payload == "uncommitted")
        }
    }

    @Test("writeCopy refuses an existing destination (fileExists), an encryption key and an in-memory configuration")
    func writeCopyRefusals() throws {
        try withTemporaryDirectory { directory in
            let realm = try Realm(configuration: copyConfig(directory))
            try addItems(1...3, to: realm)
            let existing = URL(fileURLWithPath: directory.file("taken.realm"))
            try Data("x".utf8).write(to: existing)
            #expect { try realm.writeCopy(toFile: existing) } throws: { ($0 as? Realm.Error)?.code == .fileExists }
            #expect(try Data(contentsOf: existing) == Data("x".utf8))
            let fresh = URL(fileURLWithPath: directory.file("fresh.realm"))
            #expect { try realm.writeCopy(toFile: fresh, encryptionKey: Data(count: 64)) } throws: {
                ($0 as? Realm.Error)?.code == .fail
            }
            #expect(!FileManager.default.fileExists(atPath: fresh.path))
            #expect { try realm.writeCopy(configuration: Realm.Configuration(inMemoryIdentifier: "copy-target")) }
                throws: { ($0 as? Realm.Error)?.code == .fail }
        }
    }
}

@Suite("Realm.Configuration.shouldCompactOnLaunch")
struct ShouldCompactOnLaunchTests {
    @Test("called once on the first open in the process with the file size and the bytes in use; true compacts the file")
    func compactsOnFirstOpen() throws {
        try withTemporaryDirectory { directory in
            try inScope {
                let realm = try Realm(configuration: copyConfig(directory))
                try addItems(1...2000, to: realm)
                try realm.store.checkpoint()
                try realm.write { realm.delete(realm.objects(CopyItem.self).filter("id > 100")) }
                try realm.store.checkpoint()
                try realm.store.checkpoint()
                // The deleted objects' pages are free now, and the file is as large as before.
            }
            let path = directory.file("copy.realm")
            let before = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let calls = CompactCalls()
            let block = calls.block(answer: true)
            try inScope {
                let realm = try Realm(configuration: copyConfig(directory, shouldCompact: block))
                let again = try Realm(configuration: copyConfig(directory, shouldCompact: block))
                #expect(realm.objects(CopyItem.self).count == 100)
                #expect(again.objects(CopyItem.self).count == 100)
            }
            let seen = calls.calls.all
            #expect(seen.count == 1, "\(seen)")
            if let (total, used) = seen.first {
                #expect(used <= total && used > 0)
            }
            let after = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(after < before, "compaction left the file at \(after) bytes (was \(before))")
            let realm = try Realm(configuration: copyConfig(directory))
            #expect(realm.objects(CopyItem.self).count == 100)
            #expect(realm.object(ofType: CopyItem.self, forPrimaryKey: 100)?.payload.count == 1000)
        }
    }

    @Test("returning false leaves the file as it is; readOnly with a block is refused")
    func declinesAndReadOnly() throws {
        try withTemporaryDirectory { directory in
            try inScope {
                let realm = try Realm(configuration: copyConfig(directory))
                try addItems(1...10, to: realm)
                try realm.store.checkpoint()
            }
            let path = directory.file("copy.realm")
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let calls = CompactCalls()
            try inScope {
                _ = try Realm(configuration: copyConfig(directory, shouldCompact: calls.block(answer: false)))
            }
            #expect(calls.calls.all.count == 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            var readOnly = copyConfig(directory, shouldCompact: calls.block(answer: true))
            readOnly.readOnly = true
            #expect { try Realm(configuration: readOnly) } throws: { ($0 as? Realm.Error)?.code == .fail }
        }
    }
}
