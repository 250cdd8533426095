import Foundation
import Testing
import StrataTestSupport
import StrataStorage
import StrataSupport
@testable import StrataEngine

/// Rows packed column by column (`RowBlock`) read back exactly the values they were made from,
/// whatever mix of kinds a column holds, and changing one gives it values of its own without
/// touching the others.
@Suite("Row blocks")
struct RowBlockTests {
    /// A value of a kind picked by `kind` (numbers, strings short and long, nulls, and kinds a
    /// block stores as values).
    private static func value(kind: UInt64, _ random: inout SeededRandom) -> Value {
        switch kind % 9 {
        case 0: .null
        case 1: .int(Int64(bitPattern: random.next()))
        case 2: .double(Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF))
        case 3: .string("s\(random.next() % 1000)")
        case 4: .string(String(repeating: "long string payload ", count: Int(random.next() % 5) + 1))
        case 5: .bool(random.next() % 2 == 0)
        case 6: .list([.int(1), .string("nested")])
        case 7: .timestamp(Timestamp(seconds: Int64(random.next() % 1_000_000), nanoseconds: 5))
        default: .float(1.5)
        }
    }

    /// `count` rows of `width` columns; each column mixes at most the kinds `columnKinds` gives it.
    private static func rows(count: Int, width: Int, seed: UInt64) -> [Row] {
        var random = SeededRandom(seed: seed)
        let columnKinds = (0..<width).map { _ in (random.next() % 9, random.next() % 9, random.next() % 4) }
        return (0..<count).map { _ in
            Row((0..<width).map { column in
                let (first, second, mix) = columnKinds[column]
                // Most columns hold one kind (and nulls); some mix two.
                let kind = mix == 0 ? (random.next() % 2 == 0 ? first : second) : (random.next() % 5 == 0 ? 0 : first)
                return value(kind: kind, &random)
            })
        }
    }

    private static func packed(_ rows: [Row]) -> [Row] {
        Row.repacked(rows) ?? rows
    }

    @Test("packed rows read back the values they were made from", arguments: 0..<40)
    func roundTrip(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let rows = Self.rows(count: Int(random.next() % 64) + 1, width: Int(random.next() % 8) + 1, seed: seed)
        let packed = Self.packed(rows)
        #expect(packed.allSatisfy { $0.isPacked })
        for (original, row) in zip(rows, packed) {
            #expect(row.count == original.count)
            #expect(row.values == original.values)
            for column in 0..<row.count { #expect(row[column] == original[column]) }
            #expect(row == original && original == row)
            #expect(row.hashValue == original.hashValue)
        }
    }

    @Test("a row equals itself and its copies even holding NaN, packed or not; rows with equal NaN-free values are equal")
    func equality() throws {
        let row = Row([.double(.nan), .string("x")])
        let copy = row
        #expect(row == copy)
        let packed = Self.packed([row, Row([.double(1), .string("y")])])
        let packedCopy = packed[0]
        #expect(packed[0] == packedCopy)
        #expect(Row([.int(1), .string("a")]) == Self.packed([Row([.int(1), .string("a")])])[0])
        #expect(Row([.int(1)]) != Row([.int(2)]))
        // The same row packed anew (a checkpoint repacks a leaf) is still the same row.
        let repacked = try #require(Row.repacked([packed[0], packed[1], Row([.double(2), .string("z")])]))
        #expect(repacked[0] == packed[0] && repacked[0].block !== packed[0].block)
        // One rule whatever the storage: 0.0 and -0.0 are different stored values.
        let zero = Row([.double(0)]), negativeZero = Row([.double(-0.0)])
        #expect(zero != negativeZero && zero != Self.packed([negativeZero])[0] && Self.packed([zero])[0] != negativeZero)
        #expect(zero == Self.packed([zero])[0])
    }

    @Test("a column of numbers or strings is stored as such, nulls included; anything else as values")
    func columnKinds() throws {
        let rows = [
            Row([.int(1), .double(1.5), .string("a"), .bool(true), .int(7)]),
            Row([.null, .double(2.5), .null, .bool(false), .string("mixed")]),
            Row([.int(3), .null, .string("c"), .null, .int(9)]),
        ]
        let packed = Self.packed(rows)
        let block = try #require(packed[0].block)
        #expect(block.int(column: 0, position: 0) == 1)
        #expect(block.int(column: 0, position: 1) == nil)
        #expect(block.value(column: 0, position: 1) == .null)
        #expect(block.string(column: 2, position: 2)?.pointee == "c")
        #expect(block.string(column: 2, position: 1) == nil)
        #expect(block.value(column: 1, position: 2) == .null)
        #expect(block.int(column: 4, position: 0) == nil, "a column mixing ints and strings is stored as values")
        #expect(block.value(column: 4, position: 1) == .string("mixed"))
        #expect(block.value(column: 3, position: 0) == .bool(true))
    }

    @Test("changing a packed row gives it values of its own and leaves its neighbours packed")
    func changingUnpacksOneRow() {
        let rows = Self.rows(count: 10, width: 4, seed: 99)
        var packed = Self.packed(rows)
        packed[3][1] = .string("changed")
        #expect(!packed[3].isPacked)
        #expect(packed[3][1] == .string("changed"))
        #expect(packed[3][0] == rows[3][0] && packed[3][2] == rows[3][2] && packed[3][3] == rows[3][3])
        packed[4].values.append(.int(5))
        #expect(packed[4].values == rows[4].values + [.int(5)])
        for index in [0, 1, 2, 5, 9] {
            #expect(packed[index].isPacked)
            #expect(packed[index] == rows[index])
        }
        #expect(packed[3] != rows[3])
    }

    @Test("rows that do not fit one block are left as they are")
    func notPacked() throws {
        #expect(Row.repacked([Row([.int(1)]), Row([.int(1), .int(2)])]) == nil)

        #expect(Row.repacked((0..<65).map { Row([.int(Int64($0))]) }) == nil)
        #expect(Row.repacked([]) == nil)

        let packed = Self.packed([Row([.int(1)]), Row([.int(2)]), Row([.int(3)])])
        #expect(Row.repacked(packed) == nil, "a whole block's rows are not packed again")
        // A leaf mixing packed rows, a changed one and one from another block packs anew.
        var mixed = packed
        mixed[1][0] = .int(20)
        mixed.append(Self.packed([Row([.int(4)]), Row([.int(5)])])[1])
        let repacked = try #require(Row.repacked(mixed))
        #expect(repacked.allSatisfy { $0.isPacked && $0.block === repacked[0].block })
        #expect(repacked.map(\.values) == [[.int(1)], [.int(20)], [.int(3)], [.int(5)]])
    }

    @Test("rows read back from their pages are packed a leaf at a time and hold what was written")
    func pagesReadPacked() throws {
        let schema = TableSchema(name: "Mixed", columns: [
            ColumnSchema("id", .int), ColumnSchema("name", .string), ColumnSchema("score", .double, isOptional: true),
            ColumnSchema("anything", .mixed, isOptional: true),
        ])
        func values(_ n: Int) -> [Value] {
            [.int(Int64(n)), .string(n % 3 == 0 ? "a longer name that lives on the heap \(n)" : "n\(n)"),
             n % 4 == 0 ? .null : .double(Double(n) / 3), n % 5 == 0 ? .string("s") : .int(Int64(n))]
        }
        try withTemporaryDirectory { directory in
            let path = directory.file("packed.strata")
            try withStore(.file(path)) { store in
                try store.write { tx in
                    let table = try tx.createTable(schema)
                    for n in 0..<150 { _ = try tx.insertObject(into: table, values: values(n)) }
                }
                try store.checkpoint()
            }
            try withStore(.file(path)) { store in
                let table = try #require(store.currentSnapshot.table(named: "Mixed"))
                var seen = 0
                var blocks = Set<ObjectIdentifier>()
                table.forEachObject { key, row in
                    #expect(row.isPacked)
                    if let block = row.block { blocks.insert(ObjectIdentifier(block)) }
                    #expect(row.values == values(Int(key.rawValue)))
                    seen += 1
                }
                #expect(seen == 150)
                #expect(blocks.count == 3, "150 rows: three leaves, one block each")
            }
        }
    }

    @Test("a checkpoint packs the leaves of rows it writes; rows changed after it are rows of their own until the next")
    func checkpointPacks() throws {
        let schema = TableSchema(name: "Counter", columns: [ColumnSchema("id", .int), ColumnSchema("n", .int)])
        try withTemporaryDirectory { directory in
            try withStore(.file(directory.file("checkpoint.strata"))) { store in
                let table = try store.write { tx in
                    let table = try tx.createTable(schema)
                    for id in 0..<200 { _ = try tx.insertObject(into: table, values: [.int(Int64(id)), .int(0)]) }
                    return table
                }
                func packed() -> [Bool] {
                    var packed: [Bool] = []
                    store.currentSnapshot.table(table)!.forEachObject { _, row in packed.append(row.isPacked) }
                    return packed
                }
                #expect(packed() == Array(repeating: true, count: 192) + Array(repeating: false, count: 8),
                        "a transaction packs each leaf it filled in key order; the last one, still filling, is not")
                try store.checkpoint()
                #expect(!packed().contains(false))
                try store.write { tx in
                    try tx.setValue(.int(7), at: PropertyPath(table: table, object: ObjectKey(70), column: 1))
                }
                #expect(packed().filter { !$0 }.count == 1)
                #expect(store.currentSnapshot.table(table)!.value(of: ObjectKey(70), column: 1) == .int(7))
                try store.checkpoint()
                #expect(!packed().contains(false))
                #expect(store.currentSnapshot.table(table)!.value(of: ObjectKey(70), column: 1) == .int(7))
                #expect(store.currentSnapshot.table(table)!.value(of: ObjectKey(71), column: 1) == .int(0))
            }
        }
    }

    /// A leaf's entries as a page holds them: the count, then each key and row.
    private static func leafImage(_ rows: [Row]) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeCount(rows.count)
        for (index, row) in rows.enumerated() {
            RowEntryCoding.write(ObjectKey(Int64(index)), to: &writer)
            RowEntryCoding.write(value: row, to: &writer)
        }
        return writer.bytes
    }

    private static func readLeaf(_ image: [UInt8]) throws -> [Row] {
        try image.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: "test leaf")
            let count = try reader.readCount(minimumElementSize: 2)
            return try RowEntryCoding.readLeafEntries(count, from: &reader).values
        }
    }

    @Test("a leaf's page image reads back packed; rows of different widths as rows of their own; a cut image throws")
    func leafImages() throws {
        let rows = Self.rows(count: 40, width: 5, seed: 3)
        let read = try Self.readLeaf(Self.leafImage(rows))
        #expect(read.allSatisfy { $0.isPacked })
        #expect(read.map(\.values) == rows.map(\.values))

        let uneven = [Row([.int(1), .string("one")]), Row([.int(2)]), Row([.int(3), .string("three"), .null])]
        let readUneven = try Self.readLeaf(Self.leafImage(uneven))
        #expect(!readUneven.contains { $0.isPacked })
        #expect(readUneven.map(\.values) == uneven.map(\.values))

        let image = Self.leafImage(rows)
        for cut in [1, 2, image.count / 3, image.count / 2, image.count - 1] {
            #expect(throws: StrataError.self) { try Self.readLeaf(Array(image.prefix(cut))) }
        }
    }

    @Test("a block lives as long as one of its rows and frees its strings and values with the last")
    func blockLifetime() {
        weak var block: RowBlock?
        var survivor: Row?
        do {
            let packed = Self.packed(Self.rows(count: 20, width: 5, seed: 7))
            block = packed[0].block
            survivor = packed[17]
        }
        #expect(block != nil)
        #expect(survivor?.values == Self.rows(count: 20, width: 5, seed: 7)[17].values)
        survivor = nil
        #expect(block == nil)
    }
}
