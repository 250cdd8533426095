/// One seeded database per store (100_000 rows, `.normal` pair) that W3…W6 reuse: every
/// repetition sees identical data (W6 writes the same deterministic values each time).
struct Fixtures {
    let grdb: GRDBStore
    let strata: StrataStore

    init(_ pairing: Pairing) throws {
        grdb = try GRDBStore(pairing, seededRows: Expected.rows)
        strata = try StrataStore(pairing, seededRows: Expected.rows)
    }
}
