import Foundation
import StrataTestSupport
import Testing
@testable import StrataEngine

/// Lazily read pages under concurrency: readers on several threads load the same stubs at once
/// while a writer replaces rows and checkpoints, so that pages an old snapshot reached are freed
/// and reused under it. The old snapshot must go on reading its own values.
@Suite("Lazy pages under concurrency")
struct LazyPagesConcurrencyTests {
    static let rows = 20_000

    @Test("readers of an old snapshot and of new ones see their own values while checkpoints free and reuse pages",
          arguments: [StoreConfiguration.defaultCacheSize, 16 << 10])
    func readersAndCheckpoints(cacheSize: Int) throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("lazy pages under concurrency: seed \(seed) (STRATA_SEED=\(seed) replays it)")
        try withTemporaryDirectory { directory in
            let path = directory.file("lazy.strata")
            let schema = TableSchema(name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("n", .int)],
                                     primaryKey: "id")
            try withStore(.file(path)) { store in
                try store.write { tx in
                    let table = try tx.createTable(schema)
                    for id in 0..<Self.rows { _ = try tx.insertObject(into: table, values: [.int(Int64(id)), .int(0)]) }
                }
                try store.checkpoint()
            }
            var configuration = StoreConfiguration.file(path)
            configuration.cacheSize = cacheSize
            try withStore(configuration) { store in
                let table = try #require(store.currentSnapshot.tableKey(named: "Counter"))
                let old = store.currentSnapshot  // every node a stub
                let stop = StopFlag()
                let failures = FailureLog()
                let finished = runOnThreads(4) { thread in
                    var random = SeededRandom(seed: seed &+ UInt64(thread))
                    if thread == 0 {
                        // The writer: each round sets 200 random counters to the round and checkpoints.
                        defer { stop.stop() }
                        for round in 1...15 {
                            do {
                                try store.write { tx in
                                    for _ in 0..<200 {
                                        let object = ObjectKey(Int64(random.next() % UInt64(Self.rows)))
                                        try tx.setValue(.int(Int64(round)),
                                                        at: PropertyPath(table: table, object: object, column: 1))
                                    }
                                }
                                try store.checkpoint()
                            } catch {
                                failures.record("round \(round): \(error)")
                                return
                            }
                        }
                        return
                    }
                    // Readers: random lookups in the old snapshot (always 0) and in the newest one.
                    while !stop.isStopped {
                        let object = ObjectKey(Int64(random.next() % UInt64(Self.rows)))
                        if old.table(table)?.value(of: object, column: 1) != .int(0) {
                            failures.record("the old snapshot changed at \(object)")
                            return
                        }
                        let id = Int64(random.next() % UInt64(Self.rows))
                        guard store.currentSnapshot.table(table)?.object(forPrimaryKey: .int(id)) == ObjectKey(id) else {
                            failures.record("primary key \(id) not found")
                            return
                        }
                    }
                }
                #expect(finished)
                #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
                // The old snapshot, read whole after its pages were freed and reused: all zeros.
                var nonZero = 0
                old.table(table)?.forEachObject { _, row in if row.values[1] != .int(0) { nonZero += 1 } }
                #expect(nonZero == 0)
                #expect(try store.verifyFile() > 0)
            }
        }
    }
}
