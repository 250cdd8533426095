import StrataSupport

/// The one write transaction of a store: a working snapshot that changes as instructions are
/// applied, committed atomically (all or nothing) or cancelled.
///
/// Begin one with ``Store/beginWrite()`` or use ``Store/write(_:)``. Only one transaction is
/// open per store at a time; others wait in ``Store/beginWrite()``. A transaction is confined to
/// the thread that uses it (it is not `Sendable`). Dropping an open transaction cancels it.
///
/// Every mutation validates its input first (types, existence, primary-key uniqueness, embedded
/// ownership) and throws ``StrataError/Code/invalidInput`` or
/// ``StrataError/Code/duplicatePrimaryKey`` without changing anything; then it applies the
/// instructions that carry it out, including cascades: erasing an object removes the links to
/// it and erases the embedded objects it owns.
package final class WriteTransaction {
    /// The transaction's working snapshot: the base version plus every change so far.
    // The transaction is confined to its writer (one thread at a time), and no access to these
    // two fields spans a call that reaches them again, so they skip dynamic exclusivity checks.
    @exclusivity(unchecked) package private(set) var snapshot: Snapshot
    /// The instructions applied so far, encoded as the commit's log record holds them.
    @exclusivity(unchecked) private var spool: InstructionSpool
    /// Bumped for every instruction applied: the owning Realm's ``ChangeCounter``, so that row
    /// caches of its objects see the transaction's changes.
    package var changeCounter: ChangeCounter?
    /// The version the transaction started from.
    package let baseVersion: UInt64
    private let store: Store
    private var isOpen = true
    /// Where the transaction moves the leaves it filled (see ``spillFilledLeaves()``), once
    /// made; nil before, and for good when it cannot be made or written.
    private var scratchPages: ScratchPages?
    /// Whether the transaction may still move rows to its scratch file (a store with files, and no
    /// scratch write failed).
    private var spillsRows: Bool
    /// The tables the transaction created objects in since it last moved rows.
    private var tablesFilled: Set<TableKey> = []
    /// The spooled instruction bytes past which the transaction next moves rows.
    private var nextRowSpill: UInt64

    init(store: Store, base: Snapshot) {
        self.store = store
        snapshot = base
        baseVersion = base.version
        spool = InstructionSpool(spillingInto: store.files.map { Self.directory(of: $0.path) },
                                 chunkBytes: store.configuration.instructionSpoolBytes)
        spillsRows = store.files != nil
        nextRowSpill = UInt64(store.configuration.instructionSpoolBytes)
    }

    /// The directory holding the file at `path`.
    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The number of instructions applied so far.
    package var instructionCount: Int { spool.count }

    /// The number of bytes of encoded instructions moved to the transaction's scratch file so far
    /// (0 while they fit in memory, see ``InstructionSpool``).
    package var spooledBytes: UInt64 { spool.spilledBytes }

    /// The instructions applied so far, decoded (for inspection: the transaction keeps them
    /// encoded, see ``InstructionSpool``). Traps when a large transaction's scratch file cannot be
    /// read back.
    package var instructions: [Instruction] { spool.decodedForInspection() }

    /// Whether the transaction also keeps its instructions decoded, for ``instructions`` after
    /// the commit (a Realm recording write events reads them). Set before the first instruction.
    package var keepsInstructions: Bool {
        get { spool.keepingInstructions }
        set { spool.keepingInstructions = newValue }
    }

    deinit {
        if isOpen { store.endWrite() }
    }

    /// Whether the transaction can still change and commit.
    package var isActive: Bool { isOpen }

    /// Makes the transaction's changes durable and visible, as one new version.
    ///
    /// Returns once the commit is durable under the store's ``Durability`` and visible to new
    /// snapshots. A transaction with no instructions commits nothing and returns the base
    /// version.
    ///
    /// - Returns: the committed version.
    /// - Throws: ``StrataError/Code/poisoned`` or ``StrataError/Code/fileAccess`` when the log
    ///   cannot be written or synced (nothing is acknowledged then).
    @discardableResult
    package func commit() throws -> UInt64 {
        let logged = try logCommit()
        try store.waitUntilDurable(logged)
        return logged.version
    }

    /// The first half of ``commit()``: ends the transaction and writes its record, without
    /// waiting for the sync that acknowledges it (``Store/waitUntilDurable(_:)`` does).
    func logCommit() throws -> Store.LoggedCommit {
        try requireOpen()
        isOpen = false
        return try store.log(snapshot: snapshot, spool: spool)
    }

    /// Discards every change and ends the transaction. Does nothing if it already ended.
    package func cancel() {
        guard isOpen else { return }
        isOpen = false
        store.endWrite()
    }

    /// Calls `body` with the transaction's working snapshot where it is kept (see
    /// ``PinnedSnapshot/withSnapshot(_:)``).
    package func withSnapshot<R>(_ body: (borrowing Snapshot) -> R) -> R { body(snapshot) }

    // MARK: - Applying

    func requireOpen() throws {
        guard isOpen else { throw StrataError(.wrongState, "the write transaction has already ended") }
    }

    /// Applies and records one instruction.
    func record(_ instruction: consuming Instruction) throws {
        try requireOpen()
        try snapshot.apply(instruction)
        recordApplied(instruction)
    }

    /// Applies and records the set of `value` at `path` when `value` fits the plain scalar
    /// column there (``Snapshot/setPlainScalar(_:at:)``: one lookup of the table, no copy of
    /// the instruction); returns false, changing nothing, when it is not such a set.
    func recordPlainScalarSet(_ value: Value, at path: PropertyPath) throws -> Bool {
        try requireOpen()
        guard try snapshot.setPlainScalar(value, at: path) else { return false }
        recordApplied(.setValue(path, value))
        return true
    }

    /// Records an instruction already applied to ``snapshot``.
    private func recordApplied(_ instruction: consuming Instruction) {
        if spillsRows, case .insertObject(let table, _, _) = instruction { tablesFilled.insert(table) }
        spool.append(instruction)
        changeCounter?.increment()
        if spillsRows, spool.spilledBytes >= nextRowSpill { spillFilledLeaves() }
    }

    /// Moves the leaves the transaction filled and left behind (rows of objects created in key
    /// order, packed as each leaf filled, and the full leaves of an integer primary key given in
    /// ascending order) to its scratch file, so that a transaction creating many objects holds
    /// about a leaf of them per table in memory (read back, into the store's cache, when used
    /// again; see ``Table/spillFilledLeaves(into:)``). Runs each time the transaction's encoded instructions grow by
    /// another chunk in their own scratch file (``InstructionSpool``), so only large transactions
    /// move rows, and each call walks what was added since the last. A scratch file that cannot
    /// be made or written leaves the rows in memory, as before.
    private func spillFilledLeaves() {
        nextRowSpill = spool.spilledBytes + UInt64(store.configuration.instructionSpoolBytes)
        guard let directory = store.files.map({ Self.directory(of: $0.path) }) else { return }
        do {
            let pages = try scratchPages ?? ScratchPages(directory: directory, cache: store.files?.cache)
            scratchPages = pages
            for table in tablesFilled where !snapshot.spillFilledLeaves(of: table, into: pages) {
                spillsRows = false
                break
            }
            tablesFilled.removeAll(keepingCapacity: true)
        } catch {
            spillsRows = false
        }
    }

    func schema(of key: TableKey) throws -> TableSchema {
        guard let table = snapshot.tables[key] else { throw invalid("no table with key \(key)") }
        return table.schema
    }

    func table(_ key: TableKey) throws -> Table {
        guard let table = snapshot.table(key) else { throw invalid("no table with key \(key)") }
        return table
    }

    func invalid(_ message: String) -> StrataError { StrataError(.invalidInput, message) }
}
