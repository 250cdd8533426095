import Testing
@testable import StrataStorage

@Suite("CRC32C")
struct CRC32CTests {
    /// A bit-at-a-time CRC-32C, the definition the table-driven one must match.
    private static func reference(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    @Test("The check value of \"123456789\" is 0xE3069283")
    func checkValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test("The RFC 3720 vectors match: 32 zero bytes, 32 0xFF bytes, ascending and descending bytes")
    func rfc3720Vectors() {
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0..<32).reversed().map { UInt8($0) }) == 0x113F_DB5C)
    }

    @Test("The CPU's instruction and the tables agree on random buffers, lengths, alignments and seeds")
    func hardwareMatchesTables() {
        print("CRC32C uses the CPU's instruction: \(CRC32C.usesHardware)")
        var random = SeededRandom(seed: 42)
        func next() -> UInt64 { random.next() }
        let data = (0..<20_000).map { _ in UInt8(truncatingIfNeeded: next()) }
        data.withUnsafeBytes { raw in
            for _ in 0..<300 {
                let start = Int(next() % 64), length = Int(next() % 19_000)
                let bytes = UnsafeRawBufferPointer(rebasing: raw[start..<start + length])
                let seed = UInt32(truncatingIfNeeded: next())
                #expect(CRC32C.checksum(bytes, seed: seed) == CRC32C.tableChecksum(bytes, seed: seed),
                        "start \(start), length \(length)")
            }
        }
    }

    @Test("The checksum of no bytes is 0, and with a seed it is the seed")
    func empty() {
        #expect(CRC32C.checksum([]) == 0)
        #expect(CRC32C.checksum([], seed: 0xE306_9283) == 0xE306_9283)
    }

    @Test("Every length from 0 to 100 matches the bit-at-a-time definition, at every alignment")
    func matchesReference() {
        let data = (0..<108).map { UInt8(truncatingIfNeeded: $0 &* 89 &+ 17) }
        for start in 0..<8 {
            for length in 0...100 {
                let slice = Array(data[start..<start + length])
                let expected = Self.reference(slice)
                #expect(CRC32C.checksum(slice) == expected, "length \(length)")
                data.withUnsafeBytes { raw in
                    let unaligned = UnsafeRawBufferPointer(rebasing: raw[start..<start + length])
                    #expect(CRC32C.checksum(unaligned) == expected, "start \(start), length \(length)")
                    #expect(CRC32C.tableChecksum(unaligned) == expected, "tables: start \(start), length \(length)")
                }
            }
        }
    }

    @Test("Chaining with the checksum of a prefix as seed equals the one-shot checksum, at every split")
    func seedChaining() {
        let data = (0..<77).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 5) }
        let oneShot = CRC32C.checksum(data)
        #expect(oneShot == Self.reference(data))
        for split in 0...data.count {
            let head = CRC32C.checksum(Array(data[..<split]))
            #expect(CRC32C.checksum(Array(data[split...]), seed: head) == oneShot, "split at \(split)")
        }
        let thirds = [0..<20, 20..<41, 41..<77].reduce(UInt32(0)) { seed, range in
            CRC32C.checksum(Array(data[range]), seed: seed)
        }
        #expect(thirds == oneShot)
    }

    @Test("A single flipped bit changes the checksum")
    func detectsBitFlips() {
        let data = Array("the quick brown fox jumps over the lazy dog".utf8)
        let original = CRC32C.checksum(data)
        for index in data.indices {
            for bit in 0..<8 {
                var damaged = data
                damaged[index] ^= 1 << bit
                #expect(CRC32C.checksum(damaged) != original, "byte \(index) bit \(bit)")
            }
        }
    }
}
