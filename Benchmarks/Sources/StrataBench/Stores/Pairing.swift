import Strata

/// A durability pair compared like for like (BENCHMARKS.md, "The workload").
enum Pairing: String, CaseIterable {
    /// Strata `.normal` vs GRDB's default (WAL + `synchronous = NORMAL`): survives an
    /// application crash, the last commits may be lost on power loss.
    case normal
    /// Strata `.full` vs GRDB with `synchronous = FULL`: fsync per commit.
    case full

    var strata: Durability { self == .normal ? .normal : .full }

    /// The `synchronous` value GRDB's writer must report for this pair.
    var sqliteSynchronous: Int { self == .normal ? 1 : 2 }
}
