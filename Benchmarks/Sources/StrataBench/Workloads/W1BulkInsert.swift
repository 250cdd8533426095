/// W1: 100_000 rows in ONE write transaction into an empty table (index on name present).
enum W1BulkInsert {
    static func run(_ table: Table) throws {
        try Comparison.perPairing("W1", .best(of: 3, by: "rows_s")) { comparison in
            let pairing = comparison.pairing!
            let result = try comparison.run(grdb: .measure { try grdb(pairing) },
                                            strata: .measure { try strata(pairing) })
            table.add("W1 bulk insert, 100k rows in 1 tx", result, "rows_s", unit: "rows/s", better: .higher)
        }
    }

    static func grdb(_ pairing: Pairing) throws -> Figures {
        let store = try GRDBStore(pairing)
        let start = now()
        try store.seed(1...Expected.rows)
        let elapsed = seconds(since: start)
        return try figures(rows: try store.count, elapsed, store.sync)
    }

    static func strata(_ pairing: Pairing) throws -> Figures {
        let store = try StrataStore(pairing)
        let start = now()
        try store.seed(1...Expected.rows)
        let elapsed = seconds(since: start)
        return try figures(rows: store.count, elapsed, store.sync)
    }

    private static func figures(rows: Int, _ elapsed: Double, _ sync: String) throws -> Figures {
        try expect(rows, Int(Expected.rows), "W1 row count")
        return Figures(sync: sync, ["rows_s": .number(Double(rows) / elapsed), "rows": .integer(rows)])
    }
}
