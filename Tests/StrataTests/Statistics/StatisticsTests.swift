#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
@testable import Strata
import StrataStorage
import StrataTestSupport
import Testing

final class StatsItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var payload: String
}

/// `Realm.statistics`: each kind of holder of a version appears while it holds it and is gone
/// once it lets go; the cache counts hits and misses; a failed background checkpoint is kept as
/// the last error and logged.
@Suite("Realm.statistics")
struct StatisticsTests {
    static func configuration(_ directory: TemporaryDirectory, _ name: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file(name)), objectTypes: [StatsItem.self])
    }

    /// Every holder of every held version of `realm`'s file, of `kind`.
    static func holders(_ realm: Realm, _ kind: Realm.Statistics.Holder.Kind) -> [Realm.Statistics.Holder] {
        realm.statistics.heldVersions.flatMap(\.holders).filter { $0.kind == kind }
    }

    static func add(_ ids: ClosedRange<Int>, to realm: Realm) throws {
        try realm.write {
            for id in ids { realm.add(StatsItem(value: ["id": id, "payload": String(repeating: "x", count: 200)])) }
        }
    }

    @Test("the Realm that reads the statistics is listed as a holder of its version, described by its thread")
    func ownRealmIsAHolder() throws {
        try withTemporaryDirectory { directory in
            let realm = try Realm(configuration: Self.configuration(directory, "own.realm"))
            let statistics = realm.statistics
            #expect(statistics.path?.hasSuffix("own.realm") == true)
            let held = try #require(statistics.heldVersions.first { $0.version == statistics.version })
            let holder = try #require(held.holders.first { $0.kind == .realm })
            #expect(holder.description == "a Realm on \(RealmState.currentThreadDescription)", "\(holder)")
            #expect(holder.description.hasPrefix("a Realm on thread "), "\(holder)")
            #expect(held.versionsBehind == 0)
        }
    }

    @Test("an in-memory Realm has no path, file, log or cache, and lists its holders")
    func inMemory() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "statistics-in-memory",
                                                                 objectTypes: [StatsItem.self]))
        try Self.add(1...3, to: realm)
        let statistics = realm.statistics
        #expect(statistics.path == nil && statistics.cache == nil)
        #expect(statistics.fileBytes == 0 && statistics.logBytes == 0)
        #expect(statistics.commits >= 1)
        #expect(statistics.heldVersions.last?.version == statistics.version)
        #expect(Self.holders(realm, .realm).count == 1)
    }

    @Test("a Realm on a named thread is listed with the thread's name while it lives, and not after")
    func threadRealmHolder() throws {
        try withTemporaryDirectory { directory in
            let configuration = Self.configuration(directory, "thread.realm")
            let realm = try Realm(configuration: configuration)
            let opened = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            let failures = FailureLog()
            let thread = Thread {
                // The kernel's name too (what `pthread_setname_np` sets): Foundation's setter, on a thread just started, once in a
                // while names another `Thread` object than the one this block runs on (seen under
                // ThreadSanitizer), and the holder then falls back to the name the thread
                // inherited from its creator.
                Thread.current.name = "stats-reader"
                try? "stats-reader".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                do {
                    let threadRealm = try Realm(configuration: configuration)
                    _ = threadRealm.objects(StatsItem.self).count
                    failures.record("opened; its holders: \(Self.holders(threadRealm, .realm))")
                    opened.signal()
                    release.wait()
                } catch {
                    failures.record("open failed: \(error)")
                    opened.signal()
                }
                done.signal()
            }
            thread.start()
            #expect(opened.wait(timeout: .now() + 30) == .success)
            #expect(Self.holders(realm, .realm).contains { $0.description.contains("\"stats-reader\"") },
                    "\(Self.holders(realm, .realm)); the thread: \(failures.all)")
            release.signal()
            #expect(done.wait(timeout: .now() + 30) == .success)
            #expect(waitUntil(timeout: 30) { !Self.holders(realm, .realm).contains { $0.description.contains("stats-reader") } },
                    "\(Self.holders(realm, .realm))")
        }
    }

    @Test("a Realm on a dispatch queue is listed with the queue's label while it lives, and not after")
    func queueRealmHolder() throws {
        try withTemporaryDirectory { directory in
            let configuration = Self.configuration(directory, "queue.realm")
            let realm = try Realm(configuration: configuration)
            let queue = DispatchQueue(label: "strata.stats-queue")
            let seen = try queue.sync { () throws -> [Realm.Statistics.Holder] in
                let queueRealm = try Realm(configuration: configuration, queue: queue)
                return Self.holders(queueRealm, .realm)
            }
            #expect(seen.contains { $0.description.contains("dispatch queue \"strata.stats-queue\"") }, "\(seen)")
            #expect(waitUntil(timeout: 30) { !Self.holders(realm, .realm).contains { $0.description.contains("strata.stats-queue") } },
                    "\(Self.holders(realm, .realm))")
        }
    }

    @Test("a Realm isolated to an actor is listed with the actor's type")
    func actorRealmHolder() async throws {
        let directory = try TemporaryDirectory.create(prefix: "strata-test")
        defer { directory.remove() }
        let holders = try await StatsActor().holders(Self.configuration(directory, "actor.realm"))
        #expect(holders.contains { $0.kind == .realm && $0.description.contains("actor of type StatsActor") },
                "\(holders)")
    }

    @Test("frozen results hold their old version, listed as frozen with the changesets only they keep, until released")
    func frozenHolder() throws {
        try withTemporaryDirectory { directory in
            let realm = try Realm(configuration: Self.configuration(directory, "frozen.realm"))
            try Self.add(1...1, to: realm)
            var frozen: Results<StatsItem>? = realm.objects(StatsItem.self).freeze()
            #expect(frozen?.count == 1)
            try Self.add(2...21, to: realm)
            let statistics = realm.statistics
            let oldest = try #require(statistics.heldVersions.first)
            #expect(oldest.holders.map(\.kind) == [.frozen], "\(statistics.heldVersions)")
            #expect(oldest.versionsBehind == 1)
            #expect(oldest.changesetsKeptForItAlone == 1)
            // The commit of 20 items of 200 bytes is kept for the frozen version alone.
            #expect(oldest.bytesKeptForItAlone > 20 * 200, "\(oldest.bytesKeptForItAlone)")
            #expect(statistics.heldVersions.last?.holders.contains { $0.kind == .realm } == true)
            #expect(statistics.heldVersions.dropFirst().allSatisfy { $0.bytesKeptForItAlone == 0 })
            frozen = nil
            #expect(Self.holders(realm, .frozen).isEmpty, "\(realm.statistics.heldVersions)")
            #expect(realm.statistics.heldVersions.count == 1)
        }
    }

    @Test("a held version keeps no byte of the file: while frozen results hold an old version, checkpoints reuse the pages of the rows rewritten since")
    func heldVersionKeepsNoFileBytes() throws {
        try withTemporaryDirectory { directory in
            let realm = try Realm(configuration: Self.configuration(directory, "reuse.realm"))
            try Self.add(1...500, to: realm)
            try realm.store.checkpoint()
            let frozen = realm.objects(StatsItem.self).freeze()
            var sizes: [UInt64] = []
            for round in 0..<8 {
                try realm.write {
                    for item in realm.objects(StatsItem.self) { item.payload = String(repeating: "\(round)", count: 200) }
                }
                try realm.store.checkpoint()
                sizes.append(realm.statistics.fileBytes)
            }
            // Each round rewrites 500 rows of 200 bytes (100 KB): a file that kept the frozen
            // version's pages would grow by at least that much per round (measured: 315,392 bytes
            // after every round).
            #expect(sizes[7] <= sizes[1] + 50_000, "\(sizes)")
            #expect(frozen.count == 500)
            #expect(frozen.allSatisfy { $0.payload == String(repeating: "x", count: 200) })
            #expect(realm.statistics.heldVersions.first?.holders.map(\.kind) == [.frozen])
        }
    }

    @Test("an unresolved ThreadSafeReference holds its version, described by its type, until it is resolved")
    func threadSafeReferenceHolder() throws {
        try withTemporaryDirectory { directory in
            let realm = try Realm(configuration: Self.configuration(directory, "reference.realm"))
            try Self.add(1...1, to: realm)
            let item = try #require(realm.object(ofType: StatsItem.self, forPrimaryKey: 1))
            let reference = ThreadSafeReference(to: item)
            let holders = Self.holders(realm, .threadSafeReference)
            #expect(holders.count == 1)
            #expect(holders.first?.description.contains("ThreadSafeReference<StatsItem>") == true, "\(holders)")
            #expect(realm.resolve(reference)?.id == 1)
            #expect(Self.holders(realm, .threadSafeReference).isEmpty)
        }
    }

    @Test("a collection observer's notifier is listed as a holder while it is registered, and not after invalidate")
    func notifierHolder() throws {
        try withTemporaryDirectory { directory in
            let realm = try Realm(configuration: Self.configuration(directory, "notifier.realm"))
            try Self.add(1...1, to: realm)
            let queue = DispatchQueue(label: "strata.stats-observer")
            let delivered = DispatchSemaphore(value: 0)
            let token = realm.objects(StatsItem.self).observe(on: queue) { _ in delivered.signal() }
            #expect(delivered.wait(timeout: .now() + 30) == .success)
            #expect(waitUntil(timeout: 30) { !Self.holders(realm, .notifier).isEmpty }, "\(realm.statistics.heldVersions)")
            token.invalidate()
            #expect(waitUntil(timeout: 30) { Self.holders(realm, .notifier).isEmpty }, "\(realm.statistics.heldVersions)")
        }
    }

    @Test("with a small cache, a read of pages not in memory counts misses, rereads of them count hits, and a scan evicts")
    func cacheHitsAndMisses() throws {
        try withTemporaryDirectory { directory in
            var configuration = Self.configuration(directory, "cache.realm")
            configuration.cacheSize = 64 << 10
            do {
                let realm = try Realm(configuration: configuration)
                try Self.add(0...3_999, to: realm)
                try realm.store.checkpoint()
            }
            let realm = try Realm(configuration: configuration)
            let opened = try #require(realm.statistics.cache)
            #expect(opened.capacity == 64 << 10)
            #expect(realm.object(ofType: StatsItem.self, forPrimaryKey: 1_234)?.payload.count == 200)
            let first = try #require(realm.statistics.cache)
            #expect(first.misses > opened.misses, "\(first)")
            for _ in 0..<100 { _ = realm.object(ofType: StatsItem.self, forPrimaryKey: 1_234)?.payload }
            let again = try #require(realm.statistics.cache)
            #expect(again.hits >= first.hits + 100, "\(first) → \(again)")
            #expect(again.misses == first.misses, "\(first) → \(again)")
            var bytes = 0
            for item in realm.objects(StatsItem.self) { bytes += item.payload.utf8.count }
            #expect(bytes == 4_000 * 200)
            let scanned = try #require(realm.statistics.cache)
            #expect(scanned.misses > again.misses + 10, "\(again) → \(scanned)")
            #expect(scanned.bytesHeld <= scanned.capacity + 64 << 10)
        }
    }

    @Test("a background checkpoint that fails is the statistics' last error and is logged as an error with the path")
    func failedBackgroundCheckpoint() throws {
        try withTemporaryDirectory { directory in
            let pageFile = directory.name + "/failing.realm$"
            defer { StorageFaults.shared.removeRules(matching: pageFile) }
            let recorder = RecordingLogHandler.Recorder()
            var configuration = Self.configuration(directory, "failing.realm")
            configuration.checkpointLogBytes = 4_096
            configuration.logger = Logger(label: "strata-test") { recorder.makeHandler(label: $0) }
            let realm = try Realm(configuration: configuration)
            #expect(realm.statistics.checkpoints.lastError == nil)
            StorageFaults.shared.inject(.fail(errno: EIO), on: .write, matching: pageFile, count: 1_000_000)
            var id = 0
            let failed = waitUntil(timeout: 60) {
                id += 1
                try? Self.add(id...id, to: realm)
                return realm.statistics.checkpoints.failures > 0 && !recorder.messages.isEmpty
            }
            #expect(failed)
            let statistics = realm.statistics
            let error = try #require(statistics.checkpoints.lastError)
            #expect(error.code == .fileAccess, "\(error)")
            #expect(error.underlying?.errno == EIO, "\(error)")
            #expect(statistics.checkpoints.lastErrorVersion != nil)
            let message = try #require(recorder.messages.first)
            #expect(message.level == .error)
            #expect(message.label == "strata-test")
            #expect(message.metadata["path"].map { "\($0)".hasSuffix("failing.realm") } == true, "\(message)")
            #expect(message.metadata["error"].map { "\($0)".contains("Input/output error") } == true,
                    "\(message)")
            StorageFaults.shared.removeRules(matching: pageFile)
            try realm.store.checkpoint()
            let after = realm.statistics.checkpoints
            #expect(after.count >= 1)
            #expect(after.lastDuration != nil)
        }
    }
}

/// An actor that opens a Realm isolated to itself and reads its file's holders.
actor StatsActor {
    func holders(_ configuration: Realm.Configuration) async throws -> [Realm.Statistics.Holder] {
        let realm = try await Realm(configuration: configuration, actor: self)
        return realm.statistics.heldVersions.flatMap(\.holders)
    }
}
