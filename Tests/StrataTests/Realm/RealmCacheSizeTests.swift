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

    @Test("a Realm many times larger than its cacheSize reads, queries and updates every object")
    func largerThanTheCache() throws {
        #expect(Realm.Configuration().cacheSize == 256 << 20)
        try withTemporaryDirectory { directory in
            var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("cache.realm")),
                                                    objectTypes: [CacheItem.self])
            configuration.cacheSize = Self.cacheSize
            try { () throws in
                let realm = try Realm(configuration: configuration)
                try realm.write {
                    for id in 0..<4_000 {
                        realm.add(CacheItem(value: ["id": id, "group": "g\(id % 10)",
                                                    "payload": String(repeating: "x", count: 200)]))
                    }
                }
                try realm.store.checkpoint()
            }()
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
}
