import Foundation

/// Row `i` of the benchmark workload (BENCHMARKS.md, "The workload") (1-based, i = id), independent of any store.
struct PersonData {
    static let baseDate = 1_704_067_200.0 // 2024-01-01T00:00:00Z

    let id: Int64
    var name: String { "name-\(id)" }
    var age: Int { Int(id % 100) }
    var score: Double { Double(id % 1000) / 10 }
    var city: String { "city-\(id % 16)" }
    var createdAt: Date { Date(timeIntervalSince1970: Self.baseDate + Double(id)) }

    /// W6's deterministic new score for row `i`.
    static func updatedScore(_ id: Int64) -> Double { Double(id % 1000) / 10 + 1 }
}

/// The workload's sanity counts for 100_000 rows.
enum Expected {
    static let rows: Int64 = 100_000
    static let ageOver50City3 = 3_250
    static let ageOver50 = 49_000
    static let city3 = 6_250
    static let ageUnder10 = 10_000
}

/// SplitMix64, the PRNG of W3/W4 (seed 42).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The `count` ids of a lookup workload: 1 + r % rows, from seed 42.
    static func ids(count: Int, rows: Int64 = Expected.rows) -> [Int64] {
        var generator = SplitMix64(seed: 42)
        return (0..<count).map { _ in 1 + Int64(generator.next() % UInt64(rows)) }
    }
}
