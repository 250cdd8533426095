@testable import StrataEngine
import StrataStorage
import StrataTestSupport
import Testing

/// Strings are compared by their UTF-8 bytes everywhere in the engine, as Realm Core compares
/// them: equality, the order of set elements and index keys, and the order of map keys. Swift's
/// own `String` comparison follows canonical equivalence and is not a strict order on every
/// input (for "Å\t" and "Å" (U+212B) neither is below the other, nor are they equal), so a map
/// or set ordered by it could hold the same keys in different orders depending on insertion
/// order, and a snapshot reopened from its log differed from the one written.
@Suite("Value ordering")
struct ValueOrderingTests {
    /// Spellings Swift's `String` treats as equal or leaves unordered.
    private static let spellings = [
        "\u{00C5}", "\u{212B}", "A\u{030A}", "\u{00C5}\t", "e\u{301}", "\u{E9}", "re\u{301}ßi1B", "y$\\a", "",
    ]

    @Test("strings are equal exactly when their UTF-8 bytes are, and compare consistently with that")
    func stringEqualityIsByteEquality() {
        for a in Self.spellings {
            for b in Self.spellings {
                let sameBytes = Array(a.utf8) == Array(b.utf8)
                #expect((Value.string(a) == Value.string(b)) == sameBytes, "\(Array(a.utf8)) vs \(Array(b.utf8))")
                #expect((Value.string(a).compare(.string(b)) == 0) == sameBytes)
                #expect(Value.string(a).compare(.string(b)) == -Value.string(b).compare(.string(a)))
            }
        }
    }

    @Test("a map's keys are distinct by UTF-8 bytes and kept in byte order, whatever the insertion order")
    func mapKeysInByteOrder() {
        let expected = Self.spellings.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var random = SeededRandom(seed: 7)
        for _ in 0..<50 {
            var map = ValueMap()
            for (index, key) in Self.spellings.shuffled(using: &random).enumerated() { map[key] = .int(Int64(index)) }
            #expect(map.keys.map { Array($0.utf8) } == expected.map { Array($0.utf8) })
            for key in Self.spellings { #expect(map[key] != nil) }
        }
    }

    @Test("the checkpoint encoding of a map reopens with the same key order")
    func mapRoundTrip() throws {
        var map = ValueMap()
        for (index, key) in Self.spellings.reversed().enumerated() { map[key] = .int(Int64(index)) }
        var writer = ByteWriter()
        writer.write(Value.dictionary(map))
        let decoded = try writer.bytes.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes, origin: "test")
            return try reader.readValue(depth: 0)
        }
        #expect(decoded == .dictionary(map))
        if case .dictionary(let reopened) = decoded {
            #expect(reopened.keys.map { Array($0.utf8) } == map.keys.map { Array($0.utf8) })
        }
    }
}
