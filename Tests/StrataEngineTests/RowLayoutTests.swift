import Testing
@testable import StrataEngine

/// `Row.withValues(at:)` reads a row's values through the array's storage object; these tests
/// hold that layout to real arrays built in every way the engine builds rows.
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
        withUnsafePointer(to: row) { pointer in Row.withValues(at: pointer) { Array($0) } }
    }

    @Test("a row is one reference to its array's storage")
    func rowIsOneReference() {
        #expect(MemoryLayout<Row>.size == MemoryLayout<UnsafeRawPointer>.size)
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
