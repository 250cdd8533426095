import StrataEngine
import StrataSupport

/// The recognisable transactions the fault tests commit: commit `id` inserts one `Commit` row
/// (its id and its row count) and 2 to 5 `Entry` rows whose payloads are a function of the id,
/// so a store that holds part of a transaction, or a damaged payload, is visible. It also
/// updates the `Commit` row of commit `id − 1` when there is one (`followed` = 1) and says so in
/// its own row (`updatedPrevious` = 1): a change of an existing row, which a checkpoint writes as
/// a leaf delta, is in every transaction too, and the two flags must agree after any fault.
enum Ledger {
    /// The id of the commit that creates the two tables.
    static let schemaCommit: Int64 = 0

    /// The number of `Entry` rows of commit `id`: 2 to 5, or ``largeRowCount`` for a large commit.
    static func rowCount(_ id: Int64) -> Int { isLarge(id) ? largeRowCount : 2 + Int(id % 4) }

    /// Whether commit `id` is a large one: ids ending in 999 (about 40 KB of instructions, more
    /// than a store configured with ``largeCommitSpoolBytes`` keeps in memory before it spools
    /// them to a scratch file and streams the log record from there).
    static func isLarge(_ id: Int64) -> Bool { id % 1000 == 999 }

    /// The number of `Entry` rows of a large commit.
    static let largeRowCount = 120

    /// An ``StoreConfiguration/instructionSpoolBytes`` under which a large commit is spooled in
    /// two or three pieces.
    static let largeCommitSpoolBytes = 16 << 10

    /// The key of row `index` of commit `id`.
    static func entryKey(_ id: Int64, _ index: Int) -> Int64 { id * entryKeysPerCommit + Int64(index) }

    /// How many entry keys each commit has room for.
    private static let entryKeysPerCommit: Int64 = 1_024

    /// The payload of row `index` of commit `id`: 1 to 700 bytes, so records straddle pages.
    static func payload(_ id: Int64, _ index: Int) -> String {
        let length = Int((id &* 7919 &+ Int64(index) &* 977) % 700) + 1
        return String(repeating: Character(UnicodeScalar(UInt8(97 + (id + Int64(index)) % 26))), count: length)
    }

    /// Creates the tables (the schema commit).
    static func createTables(in store: Store) throws {
        try store.write { tx in
            _ = try tx.createTable(TableSchema(
                name: "Commit",
                columns: [ColumnSchema("id", .int), ColumnSchema("rows", .int), ColumnSchema("followed", .int),
                          ColumnSchema("updatedPrevious", .int)],
                primaryKey: "id"))
            _ = try tx.createTable(TableSchema(
                name: "Entry",
                columns: [ColumnSchema("id", .int), ColumnSchema("commit", .int), ColumnSchema("payload", .string)],
                primaryKey: "id"))
        }
    }

    /// Commits transaction `id` (the tables must exist).
    static func commit(_ id: Int64, to store: Store) throws {
        try store.write { tx in try write(id, in: tx) }
    }

    /// Makes the changes of transaction `id` in `tx` (the tables must exist).
    static func write(_ id: Int64, in tx: WriteTransaction) throws {
        let commits = tx.snapshot.tableKey(named: "Commit")!
        let entries = tx.snapshot.tableKey(named: "Entry")!
        var updatedPrevious: Int64 = 0
        if let previous = tx.snapshot.table(commits)?.object(forPrimaryKey: .int(id - 1)) {
            try tx.setValue(.int(1), at: PropertyPath(table: commits, object: previous, column: 2))
            updatedPrevious = 1
        }
        try tx.insertObject(into: commits, values: [.int(id), .int(Int64(rowCount(id))), .int(0), .int(updatedPrevious)])
        for index in 0..<rowCount(id) {
            try tx.insertObject(into: entries, values: [.int(entryKey(id, index)), .int(id), .string(payload(id, index))])
        }
    }

    /// What a snapshot holds: the ids of the whole commits, and what is wrong with it.
    struct Contents {
        /// Whether the schema commit is there.
        var hasTables = false
        /// The ids of the commits present (the schema commit included when the tables exist).
        var commits: Set<Int64> = []
        /// Partial or damaged transactions.
        var problems: [String] = []
    }

    /// Reads `snapshot` and checks that every transaction in it is whole.
    static func contents(of snapshot: Snapshot) -> Contents {
        var result = Contents()
        guard let commitTable = snapshot.table(named: "Commit"), let entryTable = snapshot.table(named: "Entry") else {
            if snapshot.table(named: "Commit") != nil || snapshot.table(named: "Entry") != nil {
                result.problems.append("only one of the two tables of the schema commit exists")
            }
            return result
        }
        result.hasTables = true
        result.commits.insert(schemaCommit)
        var expectedRows: [Int64: Int] = [:]
        var followed: Set<Int64> = [], updatedPrevious: Set<Int64> = []
        commitTable.forEachObject { _, row in
            guard case .int(let id) = row[0], case .int(let rows) = row[1], rows == Int64(rowCount(id)),
                  case .int(let next) = row[2], case .int(let previous) = row[3], (0...1).contains(next),
                  (0...1).contains(previous) else {
                result.problems.append("malformed Commit row \(row.values)")
                return
            }
            expectedRows[id] = Int(rows)
            result.commits.insert(id)
            if next == 1 { followed.insert(id) }
            if previous == 1 { updatedPrevious.insert(id) }
        }
        // Commit `id` set `followed` on `id − 1` exactly when it says it did.
        for id in followed where !updatedPrevious.contains(id + 1) {
            result.problems.append("commit \(id) is marked followed, but commit \(id + 1) did not update it")
        }
        for id in updatedPrevious where !followed.contains(id - 1) {
            result.problems.append("commit \(id) updated commit \(id - 1), which is missing or unchanged")
        }
        var foundRows: [Int64: Int] = [:]
        entryTable.forEachObject { _, row in
            guard case .int(let key) = row[0], case .int(let id) = row[1], case .string(let payload) = row[2],
                  key / entryKeysPerCommit == id, payload == Self.payload(id, Int(key % entryKeysPerCommit)) else {
                result.problems.append("damaged Entry row (key \(row[0]), commit \(row[1]))")
                return
            }
            foundRows[id, default: 0] += 1
        }
        for (id, rows) in expectedRows where foundRows[id] != rows {
            result.problems.append("commit \(id) is partial: \(foundRows[id] ?? 0) of \(rows) rows")
        }
        for id in foundRows.keys where expectedRows[id] == nil {
            result.problems.append("entries of commit \(id) without its Commit row")
        }
        return result
    }
}
