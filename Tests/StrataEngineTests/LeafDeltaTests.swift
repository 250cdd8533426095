import Foundation
import StrataStorage
import StrataSupport
import Testing
@testable import StrataEngine

/// Leaf deltas: a checkpoint writes the changed entries of a leaf whose page it keeps, and a read
/// applies them to the page's image (see `LeafDelta.swift`).
@Suite("Leaf deltas")
struct LeafDeltaTests {
    typealias Delta = LeafDelta<RowEntryCoding>
    typealias Entries = (keys: [ObjectKey], values: [Row])

    /// Whether two leaves hold the same keys and rows stored identically.
    static func same(_ a: Entries, _ b: Entries) -> Bool {
        a.keys == b.keys && zip(a.values, b.values).allSatisfy { Value.areStoredIdentically($0.values, $1.values) }
    }

    /// A random row of `width` values, awkward values weighted up.
    static func row(_ values: inout RandomValues, width: Int) -> Row {
        Row((0..<width).map { _ in
            values.chance(30) ? values.mixed(depth: 1) : values.pick([.int(values.int()), .double(values.double()),
                                                                       .string(values.string()), .null])
        })
    }

    /// `leaf` with random entries deleted, inserted, changed in some columns (a double's sign of
    /// zero or NaN payload among them) or replaced by rows of another width.
    static func mutated(_ leaf: Entries, _ values: inout RandomValues, width: Int) -> Entries {
        var entries = Dictionary(uniqueKeysWithValues: zip(leaf.keys, leaf.values))
        for key in leaf.keys {
            switch Int.random(in: 0..<100, using: &values.random) {
            case 0..<10: entries[key] = nil
            case 10..<30:
                var row = entries[key]!
                let column = Int.random(in: 0..<row.count, using: &values.random)
                row[column] = values.pick([.double(0), .double(-0.0), .double(.nan), .double(-.nan),
                                           .float(-0.0), row[column], .int(values.int())])
                entries[key] = row
            case 30..<33: entries[key] = row(&values, width: width + 1)
            default: break
            }
        }
        for _ in 0..<Int.random(in: 0..<6, using: &values.random) {
            entries[ObjectKey(Int64.random(in: 0..<200, using: &values.random))] = row(&values, width: width)
        }
        let keys = entries.keys.sorted()
        return (keys, keys.map { entries[$0]! })
    }

    @Test("a delta composed over an earlier one, applied to the page image, gives the leaf; an unchanged leaf has none")
    func composedDeltasApply() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("leaf deltas: seed \(seed) (STRATA_SEED=\(seed) replays it)")
        var values = RandomValues(seed: seed)
        for round in 0..<400 {
            let width = Int.random(in: 1...5, using: &values.random)
            let keys = Array(Set((0..<Int.random(in: 0..<64, using: &values.random)).map { _ in
                ObjectKey(Int64.random(in: 0..<200, using: &values.random))
            })).sorted()
            let image: Entries = (keys, keys.map { _ in Self.row(&values, width: width) })
            #expect(Delta.compose(previous: [], base: image, current: image, limit: .max) == [], "round \(round)")
            // The last checkpoint's leaf: the image with an earlier delta applied.
            let base = Self.mutated(image, &values, width: width)
            let earlier = try #require(Delta.compose(previous: [], base: image, current: base, limit: .max))
            let shapes = earlier.isEmpty ? [] : try Delta.shapes(of: earlier, origin: "test", originOffset: 0)
            if !earlier.isEmpty {
                #expect(Self.same(try Delta.apply(earlier, to: image.keys, image.values, origin: "test", originOffset: 0),
                                  base), "round \(round): the earlier delta")
            } else {
                #expect(Self.same(image, base), "round \(round): no delta for a changed leaf")
            }
            let current = Self.mutated(base, &values, width: width)
            let composed = try #require(Delta.compose(previous: shapes, base: base, current: current, limit: .max))
            let applied = composed.isEmpty ? image
                : try Delta.apply(composed, to: image.keys, image.values, origin: "test", originOffset: 0)
            #expect(Self.same(applied, current), "round \(round): the composed delta")
        }
    }

    @Test("a delta holds only the changed columns of a changed row; a limit it would pass refuses it")
    func patchesAreSmall() throws {
        let keys = (Int64(0)..<64).map(ObjectKey.init)
        let rows = keys.map { Row([.int($0.rawValue), .string(String(repeating: "x", count: 100)), .double(1.5)]) }
        var changed = rows
        changed[17][2] = .double(-1.5)
        let record = try #require(Delta.compose(previous: [], base: (keys, rows), current: (keys, changed), limit: .max))
        #expect(record.count < 16, "\(record.count) bytes for one double")
        #expect(Delta.compose(previous: [], base: (keys, rows), current: (keys, changed), limit: record.count - 1) == nil)
        let shapes = try Delta.shapes(of: record, origin: "test", originOffset: 0)
        #expect(shapes.map(\.key) == [ObjectKey(17)] && shapes.map(\.shape) == [.patch([2])])
    }

    @Test("malformed deltas are corruptFile, never a wrong leaf")
    func malformedDeltas() throws {
        let keys = [ObjectKey(1), ObjectKey(3)]
        let rows = [Row([.int(1)]), Row([.int(3)])]
        func record(_ build: (inout ByteWriter) -> Void) -> [UInt8] {
            var writer = ByteWriter(capacity: 32)
            build(&writer)
            return writer.bytes
        }
        let cases: [(String, [UInt8])] = [
            ("no changes", record { $0.writeCount(0) }),
            ("a delete of a key the page lacks", record { $0.writeCount(1); $0.writeSignedVarint(2); $0.write(0) }),
            ("an insert of a key the page holds", record {
                $0.writeCount(1); $0.writeSignedVarint(1); $0.write(1); $0.writeCount(1); $0.write(Value.int(5))
            }),
            ("keys out of order", record { $0.writeCount(2); $0.writeSignedVarint(3); $0.write(0); $0.writeSignedVarint(1); $0.write(0) }),
            ("an unknown change", record { $0.writeCount(1); $0.writeSignedVarint(1); $0.write(9) }),
            ("a column past the row", record {
                $0.writeCount(1); $0.writeSignedVarint(1); $0.write(3); $0.writeCount(1); $0.writeCount(4); $0.write(Value.int(0))
            }),
            ("trailing bytes", record { $0.writeCount(1); $0.writeSignedVarint(1); $0.write(0); $0.write(0) }),
        ]
        for (label, bytes) in cases {
            expectStrataError(.corruptFile, "\(label)") {
                _ = try Delta.apply(bytes, to: keys, rows, origin: "test", originOffset: 0)
            }
        }
    }

    /// Counter: 0 id (int, primary key), 1 x (double).
    static let schema = TableSchema(name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("x", .double)],
                                    primaryKey: "id")

    static func configuration(_ path: String) -> StoreConfiguration {
        var configuration = StoreConfiguration.file(path, durability: .normal)
        configuration.cacheSize = 32 << 10
        return configuration
    }

    /// Creates the `Counter` table in `store` with rows 0..<`count` (x = 0) and checkpoints.
    static func checkpointedCounters(_ count: Int64, in store: Store) throws -> TableKey {
        let table = try store.write { tx in
            let table = try tx.createTable(schema)
            for id in Int64(0)..<count { _ = try tx.insertObject(into: table, values: [.int(id), .double(0)]) }
            return table
        }
        try store.checkpoint()
        return table
    }

    static func set(_ x: Double, of id: Int64, table: TableKey, in store: Store) throws {
        try store.write { tx in
            try tx.setValue(.double(x), at: PropertyPath(table: table, object: ObjectKey(id), column: 1))
        }
    }

    static func expectRows(_ snapshot: Snapshot, _ model: [Int64: Double], _ label: String) {
        guard let table = snapshot.table(named: "Counter") else { Issue.record("\(label): no table"); return }
        var seen = 0
        table.forEachObject { key, row in
            seen += 1
            guard case .double(let x) = row.values[1], let expected = model[key.rawValue] else {
                Issue.record("\(label): unexpected row \(key): \(row)")
                return
            }
            #expect(x.bitPattern == expected.bitPattern, "\(label): row \(key) holds \(x), not \(expected)")
        }
        #expect(seen == model.count, "\(label): rows")
    }

    @Test("snapshots pinned between delta checkpoints keep their rows while deltas are replaced, moved and their pages reused; reopening reads the latest, signs of zero included")
    func pinnedSnapshotsAcrossDeltaCheckpoints() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("leaf deltas, pinned snapshots: seed \(seed) (STRATA_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        try withTemporaryDirectory { directory in
            let path = directory.file("deltas.strata")
            var model = Dictionary(uniqueKeysWithValues: (Int64(0)..<6000).map { ($0, 0.0) })
            let table = try withStore(Self.configuration(path)) { store in
                let table = try Self.checkpointedCounters(6000, in: store)
                return table
            }
            try withStore(Self.configuration(path)) { store in
                var pins: [(PinnedSnapshot, [Int64: Double], Int)] = []
                for round in 1...30 {
                    // A few rows, each in its own leaf: deltas of one row, spread over many pages.
                    for _ in 0..<Int(random.next() % 8 + 1) {
                        let id = Int64(random.next() % 6000)
                        let x = [-0.0, 0.0, Double(round), -Double(round)][Int(random.next() % 4)]
                        try Self.set(x, of: id, table: table, in: store)
                        model[id] = x
                    }
                    try store.checkpoint()
                    if round % 5 == 0 { pins.append((try store.pin(), model, round)) }
                }
                for (pin, pinned, round) in pins { Self.expectRows(pin.snapshot, pinned, "pinned at round \(round)") }
                Self.expectRows(store.currentSnapshot, model, "current")
                #expect(try store.verifyFile() > 0)
            }
            try withStore(Self.configuration(path)) { store in
                Self.expectRows(store.currentSnapshot, model, "reopened")
                let pagesInUse = try store.verifyFile()
                #expect(pagesInUse > 0)
            }
        }
    }

    @Test("one row changed per checkpoint, each in another leaf, does not leave a leaf-deltas page per checkpoint")
    func sparseDeltaPagesAreMoved() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("sparse.strata")
            var pageCounts: [UInt64] = []
            try withStore(Self.configuration(path)) { store in
                let table = try Self.checkpointedCounters(20000, in: store)
                // Leaves of rows hold 64 of them: row 64·k is in leaf k, and no leaf changes twice.
                for round in Int64(0)..<120 {
                    try Self.set(1, of: round * 64 % 20000, table: table, in: store)
                    try store.checkpoint()
                    pageCounts.append(try #require(store.files?.pages).file.header.checkpoint.pageCount)
                }
            }
            // Without moving the deltas of pages less than a quarter used, each checkpoint would
            // leave one more leaf-deltas page in use (120 in all).
            #expect(pageCounts[119] <= pageCounts[9] + 4, "page counts: \(pageCounts)")
            let file = try PageFile.open(path: path, options: PageFile.Options(cacheBytes: 0, readOnly: true))
            let deltaPages = (2..<file.header.checkpoint.pageCount).filter { (try? file.read(page: $0))?.kind == .leafDeltas }
            #expect(deltaPages.count <= 6, "\(deltaPages.count) leaf-deltas pages")
        }
    }

    @Test("a leaf changed again while a checkpoint writes it is written by the next checkpoint as a delta of the page that checkpoint wrote, not whole")
    func leafChangedDuringACheckpointKeepsItsPage() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("during.strata")
            let expected = Dictionary(uniqueKeysWithValues: (Int64(0)..<2000).map { ($0, $0 == 100 ? 2.0 : 0.0) })
            try withStore(Self.configuration(path)) { store in
                let table = try Self.checkpointedCounters(2000, in: store)
                try Self.set(1, of: 100, table: table, in: store)
                // The next checkpoint writes that leaf (as a delta of its page); while it syncs the
                // page file, before it records what it wrote, row 100 changes again.
                let changedDuring = LockedValueBox(false)
                StorageFaults.shared.interceptSyncs(matching: directory.name) { synced in
                    guard synced == path, !changedDuring.withLockedValue({ $0 }) else { return false }
                    let done = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        do { try Self.set(2, of: 100, table: table, in: store) } catch { Issue.record("\(error)") }
                        done.signal()
                    }
                    done.wait()
                    changedDuring.withLockedValue { $0 = true }
                    return false
                }
                defer { StorageFaults.shared.reset(matching: directory.name) }
                try store.checkpoint()
                StorageFaults.shared.reset(matching: directory.name)
                #expect(changedDuring.withLockedValue { $0 })

                func leaf() throws -> SortedTree<ObjectKey, Row>.Node {
                    try #require(store.currentSnapshot.table(table)).rows.root.leaf(for: ObjectKey(100))
                }
                #expect(try leaf().extent == nil, "the leaf changed after the checkpoint took its snapshot")
                let written = try #require(try leaf().base?.extent, "the changed leaf stands in for a page")
                try store.checkpoint()
                #expect(try leaf().extent == written, "the leaf was written whole, elsewhere")
                Self.expectRows(store.currentSnapshot, expected, "after the checkpoints")
            }
            try withStore(Self.configuration(path)) { store in
                #expect(store.currentSnapshot.table(named: "Counter")?.count == 2000)
                Self.expectRows(store.currentSnapshot, expected, "after reopening")
            }
        }
    }

    @Test("a damaged leaf-deltas page or delta directory is corruptFile naming the file and the page")
    func damagedDeltaPages() throws {
        try withTemporaryDirectory { directory in
            let original = directory.file("original.strata")
            try withStore(.file(original)) { store in
                let table = try Self.checkpointedCounters(3000, in: store)
                for id in stride(from: Int64(0), to: 3000, by: 101) { try Self.set(2, of: id, table: table, in: store) }
                try store.checkpoint()
            }
            let file = try PageFile.open(path: original, options: PageFile.Options(cacheBytes: 0, readOnly: true))
            let pageSize = file.pageSize
            var kinds: [PageKind: UInt64] = [:]
            for number in 2..<file.header.checkpoint.pageCount {
                guard let page = try? file.read(page: number), page.generation == file.header.generation else { continue }
                kinds[page.kind] = number
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
            for kind in [PageKind.leafDeltas, .deltaDirectory] {
                let page = try #require(kinds[kind], "the checkpoint wrote no \(kind) page")
                var damaged = bytes
                damaged[Int(page) * pageSize + 40] ^= 0x10
                let path = directory.file("damaged-\(kind.rawValue).strata")
                try writeStoreCopy(of: original, to: path, pageFile: damaged)
                let error = expectStrataError(.corruptFile, "\(kind)") {
                    try withStore(.file(path)) { store in _ = try store.verifyFile() }
                }
                #expect(error?.path == path && error?.message.contains("page \(page) ") == true, "\(kind): \(String(describing: error))")
            }
        }
    }

    @Test("a new page file is written in format version 2, the first that holds leaf deltas")
    func formatVersion() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("version.strata")
            try withStore(.file(path)) { _ in }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(Array(bytes[40..<44]) == [2, 0, 0, 0])
        }
    }
}
