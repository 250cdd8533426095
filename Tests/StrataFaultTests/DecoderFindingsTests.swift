@testable import StrataEngine
import StrataSupport
import Testing

/// What fuzzing the storage decoders found, one test per finding (the inputs that found them
/// are in the seed corpora, named `.crash-*`).
@Suite("Storage decoder findings")
struct DecoderFindingsTests {
    private static let schema = TableSchema(name: "Item", columns: [ColumnSchema("id", .int)])

    /// Found by the `log` decoder: a replayed record that renamed or indexed a column the table
    /// does not have trapped with an index out of range while opening the store.
    @Test("replaying renameColumn or setIndexed for a column the table does not have throws invalidInput",
          arguments: [Instruction.renameColumn(TableKey(1), 3, "x"), .setIndexed(TableKey(1), 3, true)])
    func missingColumn(instruction: Instruction) throws {
        var snapshot = Snapshot.empty
        try snapshot.apply(.createTable(TableKey(1), Self.schema))
        let error = #expect(throws: StrataError.self) { try snapshot.apply(instruction) }
        #expect(error?.code == .invalidInput)
        #expect(snapshot.table(named: "Item")?.schema.columns.count == 1, "the table is unchanged")
    }

    /// Found by the `checkpoint` decoder: a table created with the largest table key (4294967295)
    /// overflowed computing the next key and trapped while the checkpoint was decoded.
    @Test("creating a table with the largest table key throws invalidInput and changes nothing")
    func largestTableKey() throws {
        var snapshot = Snapshot.empty
        let error = #expect(throws: StrataError.self) {
            try snapshot.apply(.createTable(TableKey(UInt32.max), Self.schema))
        }
        #expect(error?.code == .invalidInput)
        #expect(snapshot.table(named: "Item") == nil)
        try snapshot.apply(.createTable(TableKey(UInt32.max - 1), Self.schema))
        #expect(snapshot.table(named: "Item")?.key == TableKey(UInt32.max - 1))
    }

    /// The same overflow, for a table a page file's catalog names (found reviewing the finding
    /// above): refused as a damaged file.
    @Test("a catalog table with the largest table key is refused as corruptFile")
    func largestLoadedTableKey() throws {
        var snapshot = Snapshot.empty
        let error = #expect(throws: StrataError.self) {
            try snapshot.installLoadedTable(Table(key: TableKey(UInt32.max), schema: Self.schema), path: "store.strata")
        }
        #expect(error?.code == .corruptFile)
        #expect(snapshot.table(named: "Item") == nil)
    }
}
