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
}
