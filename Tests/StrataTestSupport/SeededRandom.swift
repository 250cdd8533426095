import Foundation

/// SplitMix64: a small seedable generator, so a randomized test can be replayed from the seed it
/// prints. Every test target uses this one generator (copies of it had drifted apart).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed from the `STRATA_SEED` environment variable, or a fresh random one.
    public static func seedFromEnvironment() -> UInt64 {
        ProcessInfo.processInfo.environment["STRATA_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
    }
}

/// How long a randomized or fault test runs: `name` from the environment (a long mode, e.g.
/// `STRATA_REOPEN_CASES=2000`), else `standard` (the CI figure).
public func longModeCount(_ name: String, standard: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? standard
}
