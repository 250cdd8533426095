import Foundation
import StrataSupport
import StrataTestSupport
import Testing
@testable import StrataEngine

/// Lazily read pages under concurrency: readers on several threads load the same stubs at once
/// while a writer replaces rows and checkpoints, so that pages an old snapshot reached are freed
/// and reused under it. The old snapshot must go on reading its own values.
@Suite("Lazy pages under concurrency")
struct LazyPagesConcurrencyTests {
    static let rows = 20_000
    /// The writer's rounds of changes and checkpoints in `readersAndCheckpoints`.
    static let writerRounds = max(3, longModeCount("STRATA_LAZY_PAGES_ROUNDS", standard: 6))
    /// Counter: 0 id (int, primary key), 1 n (int).
    static let schema = TableSchema(name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("n", .int)],
                                    primaryKey: "id")

    @Test("readers of an old snapshot and of new ones see their own values while checkpoints free and reuse pages",
          arguments: [StoreConfiguration.defaultCacheSize, 16 << 10])
    func readersAndCheckpoints(cacheSize: Int) throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("lazy pages under concurrency: seed \(seed) (STRATA_SEED=\(seed) replays it)")
        try withTemporaryDirectory { directory in
            let path = directory.file("lazy.strata")
            try withStore(.file(path)) { store in
                try store.write { tx in
                    let table = try tx.createTable(Self.schema)
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
                        // The writer: each round sets 200 random counters to the round and checkpoints
                        // (pages are freed from the second round on and reused from the third). Six
                        // rounds by default keep the ThreadSanitizer step within CI's budget (the
                        // readers run until the writer ends, so the rounds set the test's length);
                        // STRATA_LAZY_PAGES_ROUNDS asks for more.
                        defer { stop.stop() }
                        for round in 1...Self.writerRounds {
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

    @Test("a writer cloning leaves while checkpoints on another thread write them as deltas: every commit reads back, before and after reopening")
    func writerRacesDeltaCheckpoints() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("lazy pages, writer against delta checkpoints: seed \(seed) (STRATA_SEED=\(seed) replays it)")
        try withTemporaryDirectory { directory in
            let path = directory.file("racing.strata")
            var configuration = StoreConfiguration.file(path, durability: .normal)
            configuration.cacheSize = 16 << 10
            let model = LockedValueBox([Int64: Int64]())
            try withStore(configuration) { store in
                let table = try store.write { tx in
                    let table = try tx.createTable(Self.schema)
                    for id in 0..<Self.rows { _ = try tx.insertObject(into: table, values: [.int(Int64(id)), .int(0)]) }
                    return table
                }
                try store.checkpoint()
                let stop = StopFlag()
                let failures = FailureLog()
                let finished = runOnThreads(3) { thread in
                    var random = SeededRandom(seed: seed &+ UInt64(thread))
                    switch thread {
                    case 0:
                        // The writer: 400 small transactions, each counter only ever growing.
                        defer { stop.stop() }
                        for round in Int64(1)...400 {
                            do {
                                try store.write { tx in
                                    for _ in 0..<(1 + random.next() % 4) {
                                        let id = Int64(random.next() % UInt64(Self.rows))
                                        try tx.setValue(.int(round), at: PropertyPath(table: table, object: ObjectKey(id),
                                                                                      column: 1))
                                        model.withLockedValue { $0[id] = round }
                                    }
                                }
                            } catch {
                                failures.record("round \(round): \(error)")
                                return
                            }
                        }
                    case 1:
                        // Checkpoints back to back: each records nodes the writer may be cloning.
                        while !stop.isStopped {
                            do { try store.checkpoint() } catch {
                                failures.record("checkpoint: \(error)")
                                return
                            }
                        }
                    default:
                        // A reader: a counter read twice, in two snapshots, never goes back.
                        while !stop.isStopped {
                            let object = ObjectKey(Int64(random.next() % UInt64(Self.rows)))
                            let first = store.currentSnapshot.table(table)?.value(of: object, column: 1)
                            let second = store.currentSnapshot.table(table)?.value(of: object, column: 1)
                            guard case .int(let a)? = first, case .int(let b)? = second, a <= b else {
                                failures.record("\(object) read \(String(describing: first)), then \(String(describing: second))")
                                return
                            }
                        }
                    }
                }
                #expect(finished)
                #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
                try store.checkpoint()
                #expect(try store.verifyFile() > 0)
            }
            try withStore(configuration) { store in
                let table = try #require(store.currentSnapshot.table(named: "Counter"))
                let expected = model.withLockedValue { $0 }
                var wrong = 0
                table.forEachObject { key, row in
                    if row.values[1] != .int(expected[key.rawValue] ?? 0) { wrong += 1 }
                }
                #expect(wrong == 0, "\(wrong) counters differ from the commits after reopening")
            }
        }
    }
}
