import Foundation
import Strata
import StrataTestSupport
import Testing

final class ReleaseItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

/// What keeps a Realm's file open after the test's own Realm is released.
enum ReleaseHolder: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case realmOnAnotherThread
    case frozenObject
    case threadSafeReference

    var testDescription: String { rawValue }
}

/// The log a Realm's file keeps: the bytes of its segments (`.normal` durability reserves no
/// space ahead of the commits, so this is its header and records).
private func logBytes(of configuration: Realm.Configuration) throws -> Int {
    let path = configuration.fileURL!.path
    let directory = (path as NSString).deletingLastPathComponent
    let prefix = (path as NSString).lastPathComponent + ".log."
    return try FileManager.default.contentsOfDirectory(atPath: directory)
        .filter { $0.hasPrefix(prefix) }
        .reduce(0) { total, name in
            total + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? 0)
        }
}

/// Item `id`'s name: 200 bytes, so that 200 commits are about 40 KiB of log.
private func name(_ id: Int) -> String { "item \(id) " + String(repeating: "x", count: 190) }

/// A log with no record in it: a segment header.
private let emptyLogBytes = 4_096

@Suite("Realm release checkpoints", .serialized)
struct RealmReleaseCheckpointTests {
    private func configuration(_ directory: TemporaryDirectory) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("release.realm")), objectTypes: [ReleaseItem.self],
                            durability: .normal)
    }

    @Test("releasing the last Realm of a file checkpoints it: its log is empty, and a reopen finds every object")
    func releasingTheLastRealmCheckpoints() throws {
        try withTemporaryDirectory { directory in
            let configuration = configuration(directory)
            try {
                let realm = try Realm(configuration: configuration)
                for id in 0..<200 { try realm.write { realm.add(ReleaseItem(value: ["id": id, "name": name(id)])) } }
                #expect(try logBytes(of: configuration) > 5 * emptyLogBytes)
            }()
            #expect(try logBytes(of: configuration) <= emptyLogBytes, "the release left the commits in the log")
            let realm = try Realm(configuration: configuration)
            #expect(realm.objects(ReleaseItem.self).count == 200)
            #expect(realm.object(ofType: ReleaseItem.self, forPrimaryKey: 199)?.name == name(199))
        }
    }

    @Test("a Realm on another thread, a frozen object or a thread-safe reference keeps the file open: the release checkpoint waits for it",
          arguments: ReleaseHolder.allCases)
    func somethingHeldElsewhereDefersTheCheckpoint(holder: ReleaseHolder) throws {
        try withTemporaryDirectory { directory in
            let configuration = configuration(directory)
            let ready = DispatchSemaphore(value: 0)
            let letGo = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            var frozen: ReleaseItem?
            var reference: ThreadSafeReference<ReleaseItem>?
            try {
                let realm = try Realm(configuration: configuration)
                for id in 0..<200 { try realm.write { realm.add(ReleaseItem(value: ["id": id, "name": name(id)])) } }
                switch holder {
                case .realmOnAnotherThread:
                    Thread.detachNewThread {
                        do {
                            let other = try? Realm(configuration: configuration)
                            ready.signal()
                            letGo.wait()
                            withExtendedLifetime(other) {}
                        }
                        done.signal()
                    }
                    #expect(ready.wait(timeout: .now() + 10) == .success)
                case .frozenObject:
                    frozen = realm.object(ofType: ReleaseItem.self, forPrimaryKey: 7)!.freeze()
                case .threadSafeReference:
                    reference = ThreadSafeReference(to: realm.object(ofType: ReleaseItem.self, forPrimaryKey: 7)!)
                }
            }()
            // The test's Realm is gone; the holder keeps the file open, so the log keeps the commits.
            #expect(try logBytes(of: configuration) > 5 * emptyLogBytes, "the file was checkpointed while still held")
            switch holder {
            case .realmOnAnotherThread:
                letGo.signal()
                #expect(done.wait(timeout: .now() + 20) == .success)
            case .frozenObject:
                #expect(frozen?.name == name(7))
                frozen = nil
            case .threadSafeReference:
                let resolved = try Realm(configuration: configuration).resolve(reference!)
                #expect(resolved?.name == name(7))
                reference = nil
            }
            #expect(try logBytes(of: configuration) <= emptyLogBytes, "releasing the holder did not checkpoint")
        }
    }
}
