import Foundation
@testable import Strata
import StrataTestSupport
import Testing

final class CacheItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var group: String
    @Persisted var payload: String
}

/// `Realm.Configuration.cacheSize`: a Realm far larger than its cache reads, queries and writes
/// every object while the file's pages come and go.
@Suite("Realm.Configuration.cacheSize")
struct RealmCacheSizeTests {
    static let cacheSize = 64 << 10

    /// A store at `path` of 4,000 items of about 200 bytes (many times `cacheSize`), checkpointed
    /// and closed; returns its configuration, with the small cache.
    static func checkpointedStore(at path: String) throws -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [CacheItem.self])
        configuration.cacheSize = cacheSize
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 0..<4_000 {
                realm.add(CacheItem(value: ["id": id, "group": "g\(id % 10)",
                                            "payload": String(repeating: "x", count: 200)]))
            }
        }
        try realm.store.checkpoint()
        return configuration
    }

    @Test("a Realm many times larger than its cacheSize reads, queries and updates every object")
    func largerThanTheCache() throws {
        #expect(Realm.Configuration().cacheSize == 256 << 20)
        try withTemporaryDirectory { directory in
            let configuration = try Self.checkpointedStore(at: directory.file("cache.realm"))
            let realm = try Realm(configuration: configuration)
            #expect(realm.objects(CacheItem.self).count == 4_000)
            var bytes = 0
            for item in realm.objects(CacheItem.self) { bytes += item.payload.utf8.count }
            #expect(bytes == 4_000 * 200)
            #expect(realm.objects(CacheItem.self).where { $0.group == "g3" }.count == 400)
            try realm.write {
                for id in stride(from: 0, to: 4_000, by: 7) {
                    realm.object(ofType: CacheItem.self, forPrimaryKey: id)?.payload = "updated"
                }
            }
            #expect(realm.objects(CacheItem.self).where { $0.payload == "updated" }.count == 572)
            let usage = try #require(realm.store.cacheUsage)
            #expect(usage.evictions > 0)
            #expect(usage.residentBytes <= Self.cacheSize + 64 << 10)
        }
    }

    @Test("iterating every object of a Realm larger than its cache reads each leaf once, as a scan does")
    func iterationReadsEachLeafOnce() throws {
        try withTemporaryDirectory { directory in
            var configuration = try Self.checkpointedStore(at: directory.file("reads.realm"))
            // A quarter of the table: fine-grained enough for the cache to stay full as leaves
            // come and go (a full cache is what makes a scan read leaves through it).
            configuration.cacheSize = 256 << 10
            let realm = try Realm(configuration: configuration)
            // Fills the cache, so that the reads below go through it without being kept.
            for item in realm.objects(CacheItem.self) { _ = item.payload }
            var before = try #require(realm.store.nodeReads)
            realm.readSnapshot.table(named: "CacheItem")!.forEachRow { _, _ in }
            let scanReads = try #require(realm.store.nodeReads) - before
            before = try #require(realm.store.nodeReads)
            var bytes = 0
            for item in realm.objects(CacheItem.self) { bytes += item.payload.utf8.count }
            let iterationReads = try #require(realm.store.nodeReads) - before
            #expect(bytes == 4_000 * 200)
            #expect(scanReads > 20, "the table's leaves do not fit the cache")
            #expect(iterationReads <= scanReads + scanReads / 10, "\(iterationReads) reads, a scan takes \(scanReads)")
        }
    }

    @Test("iterating every object goes on over the version it began at after refreshes past checkpoints that reuse its pages")
    func iterationOutlivesCheckpoints() throws {
        try withTemporaryDirectory { directory in
            let configuration = try Self.checkpointedStore(at: directory.file("iterate.realm"))
            // Reopened: the table's tree is read lazily from its pages, as the iteration goes.
            let realm = try Realm(configuration: configuration)
            var iterator = realm.objects(CacheItem.self).makeIterator()
            var visited: [Int] = []
            while visited.count < 100, let item = iterator.next() { visited.append(item.id) }

            // Another thread rewrites every object and adds more, checkpointing twice, so pages
            // the iteration's version still uses are freed and then reused.
            let failures = onAnotherThread {
                let other = try Realm(configuration: configuration)
                for round in 0..<2 {
                    try other.write {
                        for item in other.objects(CacheItem.self) { item.payload = "round \(round)" }
                        for id in 0..<500 {
                            other.add(CacheItem(value: ["id": 10_000 + round * 1_000 + id, "group": "new",
                                                        "payload": "new"]))
                        }
                    }
                    try other.store.checkpoint()
                }
            }
            #expect(failures.isEmpty)
            realm.refresh()

            var payloads = Set<String>()
            while let item = iterator.next() {
                visited.append(item.id)
                payloads.insert(item.payload)
            }
            #expect(visited == Array(0..<4_000))
            #expect(payloads == ["round 1"])
            #expect(realm.objects(CacheItem.self).count == 5_000)
        }
    }
}
