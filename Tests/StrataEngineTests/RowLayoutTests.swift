import Testing
@testable import StrataEngine

/// `Row.withValues(at:)` reads a row's values through the array's storage object, and
/// `Row.packedBlock(at:)` a packed row's block and position through the row's fields; these tests
/// hold that layout to real rows built in every way the engine builds them.
@Suite("Row layout")
struct RowLayoutTests {
    private static func values(_ count: Int) -> [Value] {
        (0..<count).map { index in
            switch index % 4 {
            case 0: .int(Int64(index))
            case 1: .string("value \(index) with a heap-allocated string payload")
            case 2: .null
            default: .list([.double(Double(index)), .bool(true)])
            }
        }
    }

    /// The values `withValues(at:)` sees for `row`.
    private static func readInPlace(_ row: Row) -> [Value] {
        withUnsafePointer(to: row) { pointer in Row.withValues(at: pointer) { Array($0) } } ?? []
    }

    @Test("a row's fields are where the scans read them")
    func fieldOffsets() {
        #expect(MemoryLayout<Row>.offset(of: \Row.own) == 0)
        #expect(MemoryLayout<Row>.offset(of: \Row.block) == Row.blockOffset)
        #expect(MemoryLayout<Row>.offset(of: \Row.position) == Row.positionOffset)
        // An accessor reads its cached `Row?` in place as a `Row`.
        #expect(MemoryLayout<Row?>.size == MemoryLayout<Row>.size)
    }

    @Test("a packed row is read through its block, a row of its own through its array")
    func packedRowsInPlace() {
        var rows = (0..<5).map { Row([.int(Int64($0)), .string("row \($0) with a heap-allocated string payload")]) }
        let unpacked = rows
        for index in rows.indices {
            withUnsafePointer(to: rows[index]) { #expect(Row.packedBlock(at: $0) == nil) }
        }
        rows = Row.repacked(rows) ?? rows
        for index in rows.indices {
            withUnsafePointer(to: rows[index]) { pointer in
                #expect(Row.withValues(at: pointer) { _ in 0 } == nil)
                let packed = Row.packedBlock(at: pointer)
                #expect(packed?.position == index)
                #expect(packed?.block.takeUnretainedValue() === rows[0].block)
                #expect(packed?.block.takeUnretainedValue().values(at: index) == unpacked[index].values)
            }
        }
    }

    @Test("values read in place equal the row's values, whatever the count and spare capacity", arguments: [0, 1, 3, 64, 1_000])
    func readsEveryElement(count: Int) {
        let literal = Row(Self.values(count))
        #expect(Self.readInPlace(literal) == literal.values)

        var grown = Row([])
        for value in Self.values(count) { grown.values.append(value) }
        #expect(Self.readInPlace(grown) == grown.values)

        var reserved = [Value]()
        reserved.reserveCapacity(count * 3 + 7)
        reserved.append(contentsOf: Self.values(count))
        let spare = Row(reserved)
        #expect(Self.readInPlace(spare) == spare.values)

        var shrunk = Row(Self.values(count + 5))
        shrunk.values.removeLast(5)
        #expect(Self.readInPlace(shrunk) == shrunk.values)

        let sliced = Row(Array(Self.values(count + 8).dropFirst(8)))
        #expect(Self.readInPlace(sliced) == sliced.values)
    }
}
