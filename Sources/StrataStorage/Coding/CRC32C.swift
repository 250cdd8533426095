import CStrataChecksum

/// CRC-32C (Castagnoli), the checksum of every log record and page.
///
/// With the CPU's CRC-32C instruction where it has one (x86-64 with SSE 4.2: several GB/s);
/// otherwise table-driven, slicing by 8 bytes (about 1–2 GB/s in a release build).
package enum CRC32C {
    /// Whether ``checksum(_:seed:)`` uses the CPU's instruction.
    package static let usesHardware = strata_crc32c_hardware_available() == 1

    private static let tables: [[UInt32]] = {
        let polynomial: UInt32 = 0x82F6_3B78
        var tables = Array(repeating: Array(repeating: UInt32(0), count: 256), count: 8)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1 }
            tables[0][byte] = crc
        }
        for byte in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[slice - 1][byte]
                tables[slice][byte] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`, continuing from `seed` (the checksum of earlier bytes).
    ///
    /// - Complexity: O(n).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard usesHardware, let base = bytes.baseAddress else { return tableChecksum(bytes, seed: seed) }
        return ~strata_crc32c_hardware_update(~seed, base, bytes.count)
    }

    /// The checksum of `bytes` computed with the tables alone (what ``checksum(_:seed:)`` does on
    /// a CPU without the instruction; the tests compare the two).
    package static func tableChecksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        tables.withUnsafeBufferPointer { tables in
            let t0 = tables[0], t1 = tables[1], t2 = tables[2], t3 = tables[3]
            let t4 = tables[4], t5 = tables[5], t6 = tables[6], t7 = tables[7]
            var index = 0
            let count = bytes.count
            while count - index >= 8 {
                let low = UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                    | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
                let word = crc ^ low
                crc = t7[Int(word & 0xFF)] ^ t6[Int((word >> 8) & 0xFF)]
                    ^ t5[Int((word >> 16) & 0xFF)] ^ t4[Int(word >> 24)]
                    ^ t3[Int(bytes[index + 4])] ^ t2[Int(bytes[index + 5])]
                    ^ t1[Int(bytes[index + 6])] ^ t0[Int(bytes[index + 7])]
                index += 8
            }
            while index < count {
                crc = (crc >> 8) ^ t0[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                index += 1
            }
        }
        return ~crc
    }

    /// The checksum of `bytes`.
    ///
    /// - Complexity: O(n).
    package static func checksum(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, seed: seed) }
    }
}
