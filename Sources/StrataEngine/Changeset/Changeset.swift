/// What one commit did: its per-table summary and the instructions that edit collections, which
/// notifications read, and, for a commit whose encoded instructions are in memory, those (see
/// ``InstructionSpool``).
package struct Changeset: Sendable {
    /// The version the commit produced.
    package let version: UInt64
    /// The per-table summary of the instructions.
    package let summary: ChangesetSummary
    /// The instructions that edit collections (``Instruction/editsCollection``), in the order
    /// they were applied.
    package let collectionEdits: [Instruction]
    /// Every instruction, encoded; nil for a large commit whose instructions went to a scratch
    /// file (a changeset kept for notifications does not hold a file open).
    private let encoded: SpooledInstructions?

    init(version: UInt64, summary: ChangesetSummary, collectionEdits: [Instruction], spooled: SpooledInstructions) {
        self.version = version
        self.summary = summary
        self.collectionEdits = collectionEdits
        encoded = spooled.isInMemory ? spooled : nil
    }

    /// An estimate of the memory the changeset takes while the store keeps it for a pinned
    /// version: its encoded instructions (held in memory for all but a large commit), its
    /// collection edits at their inline size, and its summary at a word per modified object
    /// (inserted and deleted objects, kept as runs, the changed columns and the dictionaries'
    /// overhead are not counted).
    ///
    /// - Complexity: O(t) in the tables the commit changed.
    package var estimatedBytes: Int {
        let summaryWords = summary.tables.values.reduce(0) { $0 + $1.modifications.count }
        return (encoded?.payloadLength ?? 0) + collectionEdits.count * MemoryLayout<Instruction>.stride
            + summaryWords * MemoryLayout<Int>.stride
    }

    /// Every instruction, in the order they were applied, decoded (for inspection: a commit
    /// keeps them encoded); nil for a large commit whose instructions went to a scratch file.
    package var instructions: [Instruction]? {
        encoded.map { encoded in
            do { return try encoded.decoded() } catch {
                preconditionFailure("a commit's instructions, encoded in memory, do not decode: \(error)")
            }
        }
    }
}

/// Which objects of one table a commit inserted, deleted and modified.
///
/// An object inserted and deleted in the same commit appears nowhere; an inserted object is not
/// also listed as modified; a deleted one is only deleted.
package struct TableChangeSummary: Sendable, Equatable {
    /// Objects created (a bulk insert's consecutive keys are one run: see ``ObjectKeySet``).
    package internal(set) var insertions = ObjectKeySet()
    /// Objects erased.
    package internal(set) var deletions = ObjectKeySet()
    /// Objects that existed before and after, with the columns that changed (including
    /// collection columns whose contents changed).
    package internal(set) var modifications: [ObjectKey: Set<Int>] = [:]
    /// Whether the table's schema changed (created, removed, columns changed); column indices
    /// in ``modifications`` then refer to the schema at the end of the commit.
    package internal(set) var schemaChanged = false

    /// Whether nothing in the table changed.
    package var isEmpty: Bool { insertions.isEmpty && deletions.isEmpty && modifications.isEmpty && !schemaChanged }
}

/// The per-table summary of a commit.
package struct ChangesetSummary: Sendable, Equatable {
    /// The tables that changed and how.
    package internal(set) var tables: [TableKey: TableChangeSummary] = [:]

    /// Derives the summary of `instructions`.
    ///
    /// - Complexity: O(instructions).
    package init(_ instructions: [Instruction] = []) {
        for instruction in instructions { record(instruction) }
    }

    /// The changes to `table`, empty when it did not change.
    package subscript(table: TableKey) -> TableChangeSummary { tables[table] ?? TableChangeSummary() }

    /// Adds what `instruction`, the next one of the commit, changed.
    mutating func record(_ instruction: Instruction) {
        let table = instruction.table
        switch instruction {
        case .removeColumn(_, let column):
            tables[table, default: TableChangeSummary()].schemaChanged = true
            tables[table]!.removeColumn(column)
        case .createTable, .removeTable, .addColumn, .renameColumn, .setIndexed, .setPrimaryKey:
            tables[table, default: TableChangeSummary()].schemaChanged = true
        case .insertObject(_, let object, _):
            tables[table, default: TableChangeSummary()].insertions.insert(object)
        case .eraseObject(_, let object):
            tables[table, default: TableChangeSummary()].erase(object)
        case .setValue(let path, _), .list(let path, _), .set(let path, _), .dictionary(let path, _):
            tables[table, default: TableChangeSummary()].modify(path.object, column: path.column)
        }
    }
}

extension TableChangeSummary {
    mutating func erase(_ object: ObjectKey) {
        modifications[object] = nil
        if insertions.remove(object) == nil { deletions.insert(object) }
    }

    /// Renumbers modified columns after `column` was removed, so indices refer to the schema at
    /// the end of the commit.
    mutating func removeColumn(_ column: Int) {
        for (object, columns) in modifications {
            let shifted = Set(columns.compactMap { $0 == column ? nil : ($0 > column ? $0 - 1 : $0) })
            modifications[object] = shifted.isEmpty ? nil : shifted
        }
    }

    mutating func modify(_ object: ObjectKey, column: Int) {
        guard !insertions.contains(object) else { return }
        modifications[object, default: []].insert(column)
    }
}
