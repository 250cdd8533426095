import Foundation
import GRDB

/// One GRDB database: a `DatabasePool` (WAL) on a file in a fresh directory, with the `Person`
/// table, in the durability of `pairing`.
final class GRDBStore {
    let pool: DatabasePool
    /// `journal_mode` and `synchronous` as read back from the writer connection.
    let sync: String
    private let scratch = Scratch()

    init(_ pairing: Pairing, seededRows rows: Int64 = 0) throws {
        pool = try DatabasePool(path: scratch.file("bench.sqlite"), configuration: Configuration())
        try pool.write(Person.createTable)
        if pairing == .full {
            // After GRDB's own setup: a pragma in prepareDatabase would be reset to NORMAL by
            // the WAL setup. The pragma is per connection; the writer's governs commits.
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        }
        let (journal, synchronous) = try pool.writeWithoutTransaction { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?",
             try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
        }
        let names = ["OFF", "NORMAL", "FULL", "EXTRA"]
        let level = names.indices.contains(synchronous) ? names[synchronous] : String(synchronous)
        sync = "journal_mode=\(journal) synchronous=\(level)"
        try expect(journal, "wal", "GRDB writer journal_mode")
        try expect(synchronous, pairing.sqliteSynchronous, "GRDB writer synchronous for the .\(pairing) pair")
        if rows > 0 { try seed(1...rows) }
    }

    /// Inserts rows `ids` in one transaction.
    func seed(_ ids: ClosedRange<Int64>) throws {
        try pool.write { db in
            for id in ids { try Person(PersonData(id: id)).insert(db) }
        }
    }

    var count: Int {
        get throws { try pool.read(Person.fetchCount) }
    }

    deinit {
        try? pool.close()
        scratch.remove()
    }
}
