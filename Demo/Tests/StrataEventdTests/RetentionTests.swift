import Foundation
import Strata
import StrataTestSupport
@testable import StrataEventd
import Testing

@Suite("Retention: old events and alerts deleted in bounded batches", .serialized)
struct RetentionTests {
    private static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "retention-\(UUID())", objectTypes: daemonObjectTypes))
    }

    /// `count` events received one second apart from `start`, with an alert for each even one.
    private static func seed(_ realm: Realm, count: Int, start: Date) throws {
        try realm.write {
            for index in 0..<count {
                let received = start.addingTimeInterval(Double(index))
                realm.create(StoredEvent.self, value: ["id": "e\(index)", "type": "t", "source": "s", "time": received,
                                                      "receivedAt": received] as [String: Any])
                if index.isMultiple(of: 2) {
                    realm.create(Alert.self, value: ["id": "r:e\(index)", "rule": "r", "eventId": "e\(index)",
                                                     "createdAt": received] as [String: Any])
                }
            }
        }
    }

    @Test("past maxEvents the oldest go, a batch at a time; past maxAlerts the oldest alerts")
    func countBound() throws {
        let realm = try Self.realm()
        try Self.seed(realm, count: 10, start: Date(timeIntervalSince1970: 1_000))
        var retention = DaemonConfig.Retention()
        retention.maxEvents = 6
        retention.maxAlerts = 2
        retention.batchSize = 3
        #expect(try IngestWriter.prune(retention, in: realm, now: Date()) == (3, 3))
        #expect(realm.objects(StoredEvent.self).map(\.id) == (3..<10).map { "e\($0)" })
        #expect(try IngestWriter.prune(retention, in: realm, now: Date()) == (1, 0))
        #expect(try IngestWriter.prune(retention, in: realm, now: Date()) == (0, 0))
        #expect(realm.objects(StoredEvent.self).map(\.id) == (4..<10).map { "e\($0)" })
        #expect(realm.objects(Alert.self).map(\.eventId) == ["e6", "e8"])
    }

    @Test("events and alerts older than maxAgeSeconds go; younger ones stay; no bound deletes nothing")
    func ageBound() throws {
        let realm = try Self.realm()
        let start = Date(timeIntervalSince1970: 1_000)
        try Self.seed(realm, count: 10, start: start)
        #expect(try IngestWriter.prune(DaemonConfig.Retention(), in: realm, now: start.addingTimeInterval(100)) == (0, 0))
        var retention = DaemonConfig.Retention()
        retention.maxAgeSeconds = 4
        // At start + 10 s, the events received before start + 6 s are older than 4 s.
        #expect(try IngestWriter.prune(retention, in: realm, now: start.addingTimeInterval(10)) == (6, 3))
        #expect(realm.objects(StoredEvent.self).map(\.id) == (6..<10).map { "e\($0)" })
        #expect(realm.objects(Alert.self).map(\.eventId) == ["e6", "e8"])
    }

    @Test("the retention and store settings load, and out-of-range ones are refused by name")
    func settings() throws {
        let config = try DaemonConfig.load(yaml: """
        retention: {maxAgeSeconds: 86400, maxEvents: 1000, maxAlerts: 10, batchSize: 100}
        store: {cacheBytes: 16777216, durability: normal, audit: false}
        """)
        #expect(config.retention.maxAgeSeconds == 86_400 && config.retention.maxEvents == 1_000
                && config.retention.maxAlerts == 10 && config.retention.batchSize == 100)
        #expect(config.store.cacheBytes == 16 << 20 && config.store.realmDurability == .normal && !config.store.audit)
        for (yaml, key) in [("retention: {maxEvents: 0}", "retention.maxEvents"), ("retention: {batchSize: 0}", "retention.batchSize"),
                            ("retention: {maxAgeSeconds: -1}", "retention.maxAgeSeconds"), ("retention: {keep: 1}", "retention.keep"),
                            ("store: {durability: sometimes}", "store.durability"), ("store: {cacheBytes: 10}", "store.cacheBytes")] {
            #expect(throws: DaemonConfigError.self, "\(yaml)") { try DaemonConfig.load(yaml: yaml) }
            do { _ = try DaemonConfig.load(yaml: yaml) } catch { #expect(error.key == key, "\(yaml): \(error)") }
        }
    }

    @Test("under steady ingest with retention on, the store keeps its bound and its files stop growing; no audit store")
    func soak() throws {
        let path = DaemonProcess.temporaryPath()
        let daemon = try DaemonProcess(dataPath: path, config: """
        checkpointBytes: 65536
        retention: {maxEvents: 2000, batchSize: 1000}
        store: {audit: false}
        """)
        defer { daemon.terminate() }
        func onDisk() -> UInt64 {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            let name = URL(fileURLWithPath: path).lastPathComponent
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return entries.filter { $0 == name || $0.hasPrefix(name + ".log.") }.reduce(UInt64(0)) { total, entry in
                let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(entry).path)
                return total + ((attributes?[.size] as? NSNumber)?.uint64Value ?? 0)
            }
        }
        var sizes: [UInt64] = []
        for round in 0..<4 {
            let report = try LoadGenerator(port: daemon.port, count: 4_000, connections: 2, idPrefix: "soak\(round)-").run()
            #expect(report.acknowledged == 4_000 && report.errors == 0)
            sizes.append(onDisk())
        }
        let stats = try daemon.stats()
        let retention = try #require(stats["retention"] as? [String: Any])
        #expect(retention["eventsDeleted"] as? Int ?? 0 >= 14_000 - 1_000, "\(retention)")
        #expect(daemon.terminate() == 0)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: daemonObjectTypes))
        #expect(realm.objects(StoredEvent.self).count <= 2_000)
        // 16,000 events went through a store that keeps 2,000: after the first round the files
        // no longer grow with the events ingested (the freed pages are used again).
        #expect(sizes[3] <= sizes[1] * 3 / 2, "sizes after each 4,000 events: \(sizes)")
        #expect(!FileManager.default.fileExists(atPath: path + ".events"), "store.audit: false keeps no audit store")
    }
}
