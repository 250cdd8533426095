#if canImport(Glibc)
import Glibc
#endif
import StrataSupport
import Testing
@testable import StrataEngine

/// Snapshots are immutable values: whatever commits follow, a snapshot taken earlier (pinned or
/// not) shows exactly the version it was taken at, and a snapshot is never a mix of two
/// versions.
@Suite("Snapshot isolation")
struct SnapshotIsolationTests {
    /// Item: 0 id (int, primary key), 1 name (string, indexed), 2 tags (list of int),
    /// 3 next (link to Item).
    private static let itemSchema = TableSchema(
        name: "Item",
        columns: [
            ColumnSchema("id", .int),
            ColumnSchema("name", .string, isIndexed: true),
            ColumnSchema("tags", .int, collection: .list),
            ColumnSchema("next", .link, isOptional: true, linkTarget: "Item"),
        ],
        primaryKey: "id")

    @Test("a pinned snapshot and an earlier currentSnapshot never change while later commits insert, modify and erase",
          arguments: StoreKind.allCases)
    func earlierSnapshotsAreImmutable(kind: StoreKind) throws {
        try withTemporaryDirectory { directory in
            try withStore(kind.configuration(in: directory)) { store in
                let items = try store.write { tx in try tx.createTable(Self.itemSchema) }
                var keys: [ObjectKey] = []
                try store.write { tx in
                    for id in 1...5 {
                        keys.append(try tx.insertObject(
                            into: items, values: [.int(Int64(id)), .string("old-\(id)"), .list([.int(0)]), .null]))
                    }
                    try tx.setValue(link(items, keys[1]), at: path(items, keys[0], 3))
                }

                let pinned = try store.pin()
                let early = store.currentSnapshot
                let before = contents(of: early)
                let version = early.version
                #expect(pinned.version == version)
                #expect(before["Item"]?.count == 5)

                // Later commits: insert, modify (scalar, list, link), erase.
                try store.write { tx in
                    for id in 6...20 {
                        try tx.insertObject(into: items, values: [.int(Int64(id)), .string("new"), .list([]), .null])
                    }
                }
                try store.write { tx in
                    for (index, key) in keys.enumerated() {
                        try tx.setValue(.string("changed-\(index)"), at: path(items, key, 1))
                        try tx.listAppend(.int(99), in: path(items, key, 2))
                    }
                }
                try store.write { tx in
                    try tx.eraseObject(keys[1], in: items)  // the target of keys[0].next
                    try tx.eraseObject(keys[2], in: items)
                }

                // The current snapshot moved on ...
                let now = store.currentSnapshot
                #expect(now.version == version + 3)
                #expect(now.table(items)?.count == 18)
                #expect(now.table(items)?.row(keys[0])?[3] == .null)
                #expect(now.table(items)?.backlinks(to: keys[1]) == [])
                #expect(now.table(items)?.objects(where: 1, equals: .string("old-1")) == [])

                // ... the earlier ones did not.
                for snapshot in [pinned.snapshot, early] {
                    #expect(snapshot.version == version)
                    #expect(contents(of: snapshot) == before)
                    let table = try #require(snapshot.table(items))
                    #expect(table.count == 5)
                    #expect(table.object(forPrimaryKey: .int(2)) == keys[1])
                    #expect(table.object(forPrimaryKey: .int(6)) == nil)
                    #expect(table.objects(where: 1, equals: .string("old-1")) == [keys[0]])
                    #expect(table.objects(where: 1, equals: .string("new")) == [])
                    #expect(table.row(keys[0])?[2] == .list([.int(0)]))
                    #expect(table.row(keys[0])?[3] == link(items, keys[1]))
                    #expect(table.backlinks(to: keys[1]) == [Backlink(table: items, column: 3, object: keys[0])])
                }
                withExtendedLifetime(pinned) {}
            }
        }
    }

    @Test("an open transaction's changes are invisible to readers until it commits, and a cancelled one leaves nothing")
    func uncommittedChangesAreInvisible() throws {
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        let items = try store.write { tx in try tx.createTable(Self.itemSchema) }
        let version = store.currentVersion

        let tx = try store.beginWrite()
        let key = try tx.insertObject(into: items, values: [.int(1), .string("a"), .list([]), .null])
        #expect(tx.snapshot.table(items)?.count == 1)
        #expect(store.currentSnapshot.table(items)?.count == 0)
        #expect(store.currentVersion == version)
        tx.cancel()
        #expect(!tx.isActive)
        #expect(store.currentSnapshot.table(items)?.count == 0)
        #expect(store.currentVersion == version)

        // The cancelled insert's key and primary key are free again.
        let again = try store.write { tx in
            try tx.insertObject(into: items, values: [.int(1), .string("b"), .list([]), .null])
        }
        #expect(again == key)
        #expect(store.currentVersion == version + 1)
        #expect(store.currentSnapshot.table(items)?.row(again)?[1] == .string("b"))
    }

    @Test("a reader repeatedly taking currentSnapshot never sees two counters of one transaction differ",
          arguments: StoreKind.allCases)
    func noTornSnapshots(kind: StoreKind) throws {
        let commits = kind == .fileFull ? 150 : 400
        try withTemporaryDirectory { directory in
            try withStore(kind.configuration(in: directory)) { store in
                let counters = try store.write { tx in
                    try tx.createTable(TableSchema(name: "Counter", columns: [ColumnSchema("value", .int)]))
                }
                let (a, b) = try store.write { tx in
                    (try tx.insertObject(into: counters, values: [.int(0)]),
                     try tx.insertObject(into: counters, values: [.int(0)]))
                }
                let base = store.currentVersion
                let failures = FailureLog()
                let done = StopFlag()
                let observations = LockedObservations()
                // The newest version any reader has seen: the writer waits for it after each
                // commit, so reads interleave with every commit instead of only a few.
                let newestSeen = LockedValueBox<UInt64>(0)

                let finished = runOnThreads(3) { index in
                    if index == 0 {
                        // The writer: commit i sets both counters to i and produces version base + i.
                        defer { done.stop() }
                        for value in 1...commits {
                            do {
                                let tx = try store.beginWrite()
                                try tx.setValue(.int(Int64(value)), at: path(counters, a, 0))
                                try tx.setValue(.int(Int64(value)), at: path(counters, b, 0))
                                let version = try tx.commit()
                                if version != base + UInt64(value) {
                                    failures.record("commit \(value) returned version \(version), expected \(base + UInt64(value))")
                                }
                                let deadline = monotonicSeconds() + 5
                                while newestSeen.withLockedValue({ $0 }) < version {
                                    guard monotonicSeconds() < deadline else {
                                        failures.record("no reader saw version \(version) within 5 s")
                                        return
                                    }
                                    sched_yield()
                                }
                            } catch {
                                failures.record("commit \(value) failed: \(error)")
                                return
                            }
                        }
                        return
                    }
                    // The readers: reader 1 takes currentSnapshot, reader 2 alternates with pins.
                    var lastVersion: UInt64 = 0
                    var reads = 0
                    var distinct = Set<UInt64>()
                    while true {
                        let finishedBefore = done.isStopped
                        let snapshot: Snapshot
                        if index == 2, reads % 2 == 1 {
                            do {
                                snapshot = try store.pin().snapshot
                            } catch {
                                failures.record("pin failed: \(error)")
                                return
                            }
                        } else {
                            snapshot = store.currentSnapshot
                        }
                        reads += 1
                        distinct.insert(snapshot.version)
                        if snapshot.version < lastVersion {
                            failures.record("reader \(index): version went back from \(lastVersion) to \(snapshot.version)")
                        }
                        lastVersion = snapshot.version
                        newestSeen.withLockedValue { $0 = max($0, snapshot.version) }
                        let table = snapshot.table(counters)
                        let valueA = table?.row(a)?[0]
                        let valueB = table?.row(b)?[0]
                        if valueA != valueB {
                            failures.record("reader \(index): torn snapshot at version \(snapshot.version): "
                                            + "\(String(describing: valueA)) != \(String(describing: valueB))")
                        }
                        let expected = Value.int(Int64(snapshot.version - base))
                        if valueA != expected {
                            failures.record("reader \(index): version \(snapshot.version) shows \(String(describing: valueA)), "
                                            + "expected \(expected)")
                        }
                        if finishedBefore { break }
                    }
                    observations.add(reads: reads, versions: distinct.count, lastVersion: lastVersion)
                }

                #expect(finished, "threads did not finish in time")
                #expect(failures.all == [])
                let seen = observations.value
                #expect(seen.reads >= commits, "readers observe every commit")
                // After the writer stopped, each reader's last read saw the final version.
                #expect(seen.lastVersions == [base + UInt64(commits), base + UInt64(commits)])
                print("torn-snapshot check (\(kind)): \(commits) commits, \(seen.reads) reads, "
                      + "\(seen.versions) distinct versions observed (summed over both readers)")
                #expect(store.currentSnapshot.table(counters)?.row(a)?[0] == .int(Int64(commits)))
            }
        }
    }
}

/// What the reader threads observed.
private final class LockedObservations: Sendable {
    struct Totals {
        var reads = 0
        var versions = 0
        var lastVersions: [UInt64] = []
    }

    private let box = LockedValueBox(Totals())

    func add(reads: Int, versions: Int, lastVersion: UInt64) {
        box.withLockedValue {
            $0.reads += reads
            $0.versions += versions
            $0.lastVersions.append(lastVersion)
        }
    }

    var value: Totals { box.withLockedValue { $0 } }
}
