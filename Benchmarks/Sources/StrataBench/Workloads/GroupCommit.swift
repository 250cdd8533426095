/// Extra: W2 with fsync-per-commit durability and 1, 2, 4, 8 writer threads (GRDB: N threads ×
/// 2000/N one-row transactions under `synchronous = FULL`; its single writer connection
/// serializes them).
enum GroupCommit {
    static func run(_ table: Table) throws {
        for threads in [1, 2, 4, 8] {
            let comparison = Comparison(workload: "group_commit_\(threads)", pairing: .full,
                                        repetition: .best(of: 3, by: "tx_s"))
            let result = try comparison.run(
                grdb: .measure { try W2SmallTransactions.grdb(.full, threads: threads) },
                strata: .measure { try W2SmallTransactions.strata(.full, threads: threads) })
            table.add("group commit, \(threads) writer thread\(threads == 1 ? "" : "s")", result, "tx_s",
                      unit: "tx/s", better: .higher)
        }
    }
}
