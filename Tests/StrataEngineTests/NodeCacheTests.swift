import Foundation
import StrataTestSupport
import Testing
@testable import StrataEngine

/// The node cache (``StoreConfiguration/cacheSize``): a store far larger than its cache reads
/// every row, index entry and old snapshot right while leaves are evicted and read again, and the
/// leaves it keeps resident stay within the cache.
@Suite("Node cache")
struct NodeCacheTests {
    static let rows = 12_000
    static let schema = TableSchema(
        name: "Item",
        columns: [ColumnSchema("id", .int), ColumnSchema("tag", .string, isIndexed: true), ColumnSchema("n", .int)],
        primaryKey: "id")
    /// A cache of a few leaves: 12,000 rows take about 190 leaves of rows alone.
    static let cacheSize = 48 << 10
    /// The most one leaf is estimated to take (a leaf's image fills at most a page, here 16 KiB).
    static let largestLeaf = (16 << 10) * 5 / 2 + 256 * 64 + 256

    static func tag(_ id: Int) -> String { "tag-\(id % 97)" }

    static func configuration(_ path: String) -> StoreConfiguration {
        var configuration = StoreConfiguration.file(path, durability: .normal)
        configuration.cacheSize = cacheSize
        return configuration
    }

    /// Checks every row, the primary-key index and the secondary index of `table` in `snapshot`
    /// against `model` (id → n).
    static func verify(_ snapshot: Snapshot, _ key: TableKey, _ model: [Int: Int], _ label: String) {
        guard let table = snapshot.table(key) else { Issue.record("\(label): no table"); return }
        #expect(table.count == model.count, "\(label): count")
        var seen = 0
        table.forEachObject { object, row in
            seen += 1
            guard case .int(let id) = row.values[0], let n = model[Int(id)] else {
                Issue.record("\(label): unexpected row \(object): \(row)")
                return
            }
            #expect(row.values[2] == .int(Int64(n)), "\(label): row \(id)")
            #expect(row.values[1] == .string(tag(Int(id))), "\(label): tag of \(id)")
        }
        #expect(seen == model.count, "\(label): rows scanned")
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let id = Int(random.next() % UInt64(rows + 200))
            let object = table.object(forPrimaryKey: .int(Int64(id)))
            #expect((object != nil) == (model[id] != nil), "\(label): primary key \(id)")
            if let object { #expect(table.value(of: object, column: 2) == .int(Int64(model[id]!)), "\(label): \(id)") }
        }
        let tagged = Set(model.keys.filter { tag($0) == tag(5) })
        let found = table.objects(where: 1, equals: .string(tag(5))).compactMap { table.value(of: $0, column: 0) }
        #expect(Set(found.map { value -> Int in if case .int(let id) = value { Int(id) } else { -1 } }) == tagged,
                "\(label): index")
    }

    /// Fills a new store at `path` as ``fill(_:)`` does and closes it; returns the table and the
    /// model.
    static func filledStore(at path: String) throws -> (TableKey, [Int: Int]) {
        try withStore(configuration(path)) { store in try fill(store) }
    }

    /// Fills `store` with `rows` items (n = 0) and checkpoints; returns the table and the model.
    static func fill(_ store: Store) throws -> (TableKey, [Int: Int]) {
        let table = try store.write { tx in
            let table = try tx.createTable(schema)
            for id in 0..<rows {
                _ = try tx.insertObject(into: table, values: [.int(Int64(id)), .string(tag(id)), .int(0)])
            }
            return table
        }
        try store.checkpoint()
        return (table, Dictionary(uniqueKeysWithValues: (0..<rows).map { ($0, 0) }))
    }

    @Test("a store many times larger than its cache reads every row and index entry within the cache")
    func readsThroughAFullCache() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("cache.strata")
            var (table, model) = (TableKey(0), [Int: Int]())
            try withStore(Self.configuration(path)) { store in
                (table, model) = try Self.fill(store)
                // The checkpoint handed its leaves to the cache, which evicted all but a few.
                let usage = try #require(store.cacheUsage)
                #expect(usage.residentBytes <= Self.cacheSize + Self.largestLeaf)
                #expect(usage.evictions > 0)
                Self.verify(store.currentSnapshot, table, model, "after the first checkpoint")
            }
            try withStore(Self.configuration(path)) { store in
                Self.verify(store.currentSnapshot, table, model, "after reopening")
                let usage = try #require(store.cacheUsage)
                #expect(usage.residentBytes <= Self.cacheSize + Self.largestLeaf)
                #expect(usage.evictions > 100, "500 random lookups through a cache of a few leaves")
                // Scans read what is not in memory through a full cache without evicting anything.
                var rows = 0
                store.currentSnapshot.table(table)?.forEachObject { _, _ in rows += 1 }
                #expect(rows == Self.rows)
                #expect(store.cacheUsage?.evictions == usage.evictions)
            }
        }
    }

    @Test("writes, checkpoints and compaction under a tiny cache keep every row; a pinned snapshot keeps its own")
    func writesAndPinnedSnapshot() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("node cache: seed \(seed) (STRATA_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        try withTemporaryDirectory { directory in
            let path = directory.file("cache.strata")
            let (table, filled) = try Self.filledStore(at: path)
            var model = filled
            try withStore(Self.configuration(path)) { store in
                let pinned = try store.pin()
                let pinnedModel = model
                var nextID = Self.rows
                for round in 1...12 {
                    try store.write { tx in
                        for _ in 0..<150 {
                            let id = Int(random.next() % UInt64(nextID))
                            guard model[id] != nil,
                                  let object = tx.snapshot.table(table)?.object(forPrimaryKey: .int(Int64(id))) else {
                                continue
                            }
                            if random.next() % 10 == 0 {
                                try tx.eraseObject(object, in: table)
                                model[id] = nil
                            } else {
                                let path = PropertyPath(table: table, object: object, column: 2)
                                try tx.setValue(.int(Int64(round)), at: path)
                                model[id] = round
                            }
                        }
                        for _ in 0..<20 {
                            _ = try tx.insertObject(into: table,
                                                    values: [.int(Int64(nextID)), .string(Self.tag(nextID)), .int(0)])
                            model[nextID] = 0
                            nextID += 1
                        }
                    }
                    if round == 6 { try store.compact() } else { try store.checkpoint() }
                }
                Self.verify(store.currentSnapshot, table, model, "after 12 rounds")
                Self.verify(pinned.snapshot, table, pinnedModel, "the snapshot pinned before the rounds")
                #expect(try store.verifyFile() > 0)
                withExtendedLifetime(pinned) {}
            }
            try withStore(Self.configuration(path)) { store in
                Self.verify(store.currentSnapshot, table, model, "after reopening")
            }
        }
    }

    @Test("random updates across a store larger than its cache start checkpoints long before the log's threshold, so the leaves they changed stay within a share of the cache")
    func changedLeavesStartCheckpoints() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("node cache, changed leaves: seed \(seed) (STRATA_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        try withTemporaryDirectory { directory in
            let path = directory.file("cache.strata")
            let (table, filled) = try Self.filledStore(at: path)
            var model = filled
            try withStore(Self.configuration(path)) { store in
                let limit = try #require(store.files?.cache?.dirtyLimit)
                let before = store.statistics.checkpoints
                // Single-row updates at random keys: a few dozen bytes of log each, a leaf of rows
                // copied out of its page each (until a checkpoint writes it).
                for round in 1...600 {
                    let id = Int(random.next() % UInt64(Self.rows))
                    try store.write { tx in
                        let object = try #require(tx.snapshot.table(table)?.object(forPrimaryKey: .int(Int64(id))))
                        try tx.setValue(.int(Int64(round)), at: PropertyPath(table: table, object: object, column: 2))
                    }
                    model[id] = round
                    let dirty = try #require(store.cacheUsage).dirtyBytes
                    // Past the limit a checkpoint starts and the writer goes on while it writes,
                    // until twice the limit, where it waits: how far past the limit it gets
                    // depends on how fast the checkpoint runs (a loaded machine: further).
                    #expect(dirty <= 2 * limit + Self.largestLeaf * 4, "round \(round): \(dirty) bytes of changed leaves")
                }
                store.backgroundCheckpoints.waitUntilIdle()
                #expect(store.statistics.lastCheckpointError == nil)
                #expect(store.statistics.checkpoints - before >= 2, "the log alone (well under its threshold) starts none")
                Self.verify(store.currentSnapshot, table, model, "after the updates")
            }
            try withStore(Self.configuration(path)) { store in
                Self.verify(store.currentSnapshot, table, model, "after reopening")
            }
        }
    }
}
