import Foundation
import StrataStorage
import StrataSupport
import Testing
@testable import StrataEngine

/// Thing: every column kind. Tag: a string primary key (odd Unicode keys, canonically equal
/// spellings).
private let thingSchema = TableSchema(name: "Thing", columns: [
    ColumnSchema("id", .int),
    ColumnSchema("any", .mixed),
    ColumnSchema("int", .int, isOptional: true, isIndexed: true),
    ColumnSchema("double", .double),
    ColumnSchema("float", .float),
    ColumnSchema("string", .string, isIndexed: true),
    ColumnSchema("data", .binary),
    ColumnSchema("date", .timestamp, isOptional: true),
    ColumnSchema("decimal", .decimal128),
    ColumnSchema("oid", .objectId),
    ColumnSchema("uuid", .uuid),
    ColumnSchema("bool", .bool),
    ColumnSchema("other", .link, linkTarget: "Thing"),
    ColumnSchema("anyList", .mixed, collection: .list),
    ColumnSchema("strings", .string, collection: .list),
    ColumnSchema("doubles", .double, collection: .set),
    ColumnSchema("names", .string, collection: .set),
    ColumnSchema("anyMap", .mixed, collection: .dictionary),
], primaryKey: "id")
private let tagSchema = TableSchema(name: "Tag", columns: [ColumnSchema("name", .string)], primaryKey: "name")

/// Column indexes of Thing.
private enum Column {
    static let any = 1, other = 12, anyList = 13, strings = 14, doubles = 15, names = 16, anyMap = 17
}

/// What the engine accepts, it can reopen: random values and random instruction sequences
/// (object, collection and schema changes) are committed to a file store, which is reopened from
/// its log and from a checkpoint; both must hold exactly what the store held in memory (compared
/// as the checkpoint encoding, so NaN payloads and -0.0 count).
///
/// `STRATA_REOPEN_CASES` sets the number of cases (default 20), `STRATA_SEED` the first seed.
@Suite("Reopen property")
struct ReopenPropertyTests {
    @Test("random values and instruction sequences reopen exactly, from the log and from a checkpoint")
    func randomContentsReopen() throws {
        let cases = longModeCount("STRATA_REOPEN_CASES", standard: 20)
        let firstSeed = SeededRandom.seedFromEnvironment()
        print("reopen property: \(cases) cases from seed \(firstSeed) (replay with STRATA_SEED=\(firstSeed))")
        var totals = Totals()
        for index in 0..<cases {
            try runCase(seed: firstSeed &+ UInt64(index), totals: &totals)
        }
        print("reopen property: \(cases) cases, \(totals.commits) commits, \(totals.operations) operations, "
              + "\(totals.refusedTooDeep) too-deep values refused")
        #expect(totals.commits > 0)
    }

    @Test("a value nested exactly at the decoder's limit is stored and reopens; one level more is refused at the write")
    func nestingLimit() throws {
        try withTemporaryDirectory { directory in
            let configuration = StoreConfiguration.file(directory.file("deep.strata"), durability: .normal)
            var values = RandomValues(seed: 1)
            let deepest = values.chain(levels: maximumValueNesting)
            let tooDeep = Value.list([deepest])
            try withStore(configuration) { store in
                let things = try store.write { tx in try tx.createTable(thingSchema) }
                let thing = try store.write { tx in try tx.insertObject(into: things, values: newThing(1, &values)) }
                try store.write { tx in
                    try tx.setValue(deepest, at: PropertyPath(table: things, object: thing, column: Column.any))
                }
                let before = store.currentVersion
                let transaction = try store.beginWrite()
                let target = PropertyPath(table: things, object: thing, column: Column.any)
                let list = PropertyPath(table: things, object: thing, column: Column.anyList)
                let map = PropertyPath(table: things, object: thing, column: Column.anyMap)
                // Each write is refused before it changes anything; an element of a collection
                // column sits one level lower, so `deepest` itself is too deep there.
                expectStrataError(.invalidInput, "setValue") { try transaction.setValue(tooDeep, at: target) }
                expectStrataError(.invalidInput, "listAppend") { try transaction.listAppend(deepest, in: list) }
                expectStrataError(.invalidInput, "dictionarySet") {
                    try transaction.dictionarySet(deepest, forKey: "k", in: map)
                }
                expectStrataError(.invalidInput, "setValue of a list") {
                    try transaction.setValue(.list([deepest]), at: list)
                }
                expectStrataError(.invalidInput, "insertObject") {
                    var fields = newThing(2, &values)
                    fields[Column.any] = tooDeep
                    try transaction.insertObject(into: things, values: fields)
                }
                expectStrataError(.invalidInput, "addColumn fill") {
                    try transaction.addColumn(ColumnSchema("extra", .mixed), to: things, fill: tooDeep)
                }
                #expect(transaction.instructions.isEmpty)
                try transaction.commit()
                #expect(store.currentVersion == before)
            }
            let expected = try withStore(configuration) { store in
                let table = try #require(store.currentSnapshot.table(named: "Thing"))
                let stored = table.value(of: table.object(at: 0), column: Column.any)
                #expect(stored.map(encodedBytes) == encodedBytes(deepest))
                try store.checkpoint()
                return store.currentSnapshot.encoded()
            }
            try withStore(configuration) { store in #expect(store.currentSnapshot.encoded() == expected) }
        }
    }

    // MARK: - One case

    private struct Totals {
        var commits = 0
        var operations = 0
        var refusedTooDeep = 0
    }

    private func runCase(seed: UInt64, totals: inout Totals) throws {
        var values = RandomValues(seed: seed)
        let durability: Durability = values.chance(50) ? .full : .normal
        try withTemporaryDirectory { directory in
            let configuration = StoreConfiguration.file(directory.file("case.strata"), durability: durability)
            var expected: [UInt8] = []
            try withStore(configuration) { store in
                let things = try store.write { tx in try tx.createTable(thingSchema) }
                let tags = try store.write { tx in try tx.createTable(tagSchema) }
                var nextID: Int64 = 0
                for _ in 0..<Int.random(in: 10...30, using: &values.random) {
                    let transaction = try store.beginWrite()
                    for _ in 0..<Int.random(in: 1...8, using: &values.random) {
                        totals.operations += 1
                        do {
                            try randomOperation(transaction, things: things, tags: tags, nextID: &nextID, &values)
                        } catch let error as StrataError where error.code == .invalidInput
                            && error.message.contains("nested deeper") {
                            totals.refusedTooDeep += 1
                        } catch let error as StrataError where error.code == .duplicatePrimaryKey {
                            continue
                        }
                    }
                    if values.chance(10) {
                        transaction.cancel()
                    } else {
                        try transaction.commit()
                        totals.commits += 1
                    }
                    if values.chance(8) { try store.checkpoint() }
                }
                expected = store.currentSnapshot.encoded()
            }
            // From the log (and any checkpoint taken on the way).
            try withStore(configuration) { store in
                #expect(store.currentSnapshot.encoded() == expected, "seed \(seed): reopened from the log")
                try store.checkpoint()
            }
            // From the checkpoint alone.
            try withStore(configuration) { store in
                #expect(store.currentSnapshot.encoded() == expected, "seed \(seed): reopened from a checkpoint")
            }
        }
    }

    /// One random mutation through the transaction's public API.
    private func randomOperation(
        _ tx: WriteTransaction, things: TableKey, tags: TableKey, nextID: inout Int64, _ values: inout RandomValues
    ) throws {
        if values.chance(4) { return try randomSchemaChange(tx, things: things, &values) }
        let objects = tx.snapshot.table(things)!.objectKeys
        guard let object = objects.isEmpty ? nil : values.pick(objects), values.chance(85) else {
            if values.chance(30) {
                _ = try tx.insertObject(into: tags, values: [.string(values.string())])
            } else {
                nextID += 1
                // Columns added by schema changes are mixed: give them values too.
                let extras = tx.snapshot.table(things)!.schema.columns.count - thingSchema.columns.count
                let fields = newThing(nextID, &values) + (0..<extras).map { _ in values.mixed(depth: 0) }
                _ = try tx.insertObject(into: things, values: fields)
            }
            return
        }
        func at(_ column: Int) -> PropertyPath { PropertyPath(table: things, object: object, column: column) }
        switch Int.random(in: 0..<14, using: &values.random) {
        case 0:
            try tx.eraseObject(object, in: things)
        case 1:
            let column = Int.random(in: 1..<thingSchema.columns.count, using: &values.random)
            try tx.setValue(newThing(0, &values)[column], at: at(column))
        case 2:
            try tx.setValue(values.chance(10) ? values.chain(levels: maximumValueNesting + 1) : values.mixed(depth: 0),
                            at: at(Column.any))
        case 3:
            try tx.setValue(.link(ObjectLink(table: things, key: values.pick(objects))), at: at(Column.other))
        case 4, 5:
            let count = tx.snapshot.table(things)!.value(of: object, column: Column.anyList).flatMap(elementCount) ?? 0
            let element = values.chance(10) ? values.chain(levels: maximumValueNesting) : values.mixed(depth: 1)
            try tx.listInsert(element, at: Int.random(in: 0...count, using: &values.random), in: at(Column.anyList))
        case 6:
            let list = at(values.chance(50) ? Column.anyList : Column.strings)
            let count = tx.snapshot.table(things)!.value(of: object, column: list.column).flatMap(elementCount) ?? 0
            guard count > 0 else { return try tx.listAppend(.string(values.string()), in: at(Column.strings)) }
            switch Int.random(in: 0..<4, using: &values.random) {
            case 0: try tx.listErase(at: Int.random(in: 0..<count, using: &values.random), in: list)
            case 1:
                let index = Int.random(in: 0..<count, using: &values.random)
                try tx.listSet(.string(values.string()), at: index, in: list)
            case 2: try tx.listMove(from: Int.random(in: 0..<count, using: &values.random),
                                    to: Int.random(in: 0..<count, using: &values.random), in: list)
            default: try tx.listClear(in: list)
            }
        case 7:
            try tx.listAppend(.string(values.string()), in: at(Column.strings))
        case 8:
            try tx.setInsert(.double(values.double()), in: at(Column.doubles))
        case 9:
            if values.chance(70) {
                try tx.setInsert(.string(values.string()), in: at(Column.names))
            } else {
                try tx.setErase(.string(values.string()), in: at(Column.names))
            }
        case 10:
            if values.chance(20) { try tx.setClear(in: at(values.chance(50) ? Column.doubles : Column.names)) }
            else { try tx.setErase(.double(values.double()), in: at(Column.doubles)) }
        case 11:
            let element = values.chance(10) ? values.chain(levels: maximumValueNesting) : values.mixed(depth: 1)
            try tx.dictionarySet(element, forKey: values.string(), in: at(Column.anyMap))
        case 12:
            if values.chance(80) { _ = try tx.dictionaryErase(key: values.string(), in: at(Column.anyMap)) }
            else { try tx.dictionaryClear(in: at(Column.anyMap)) }
        default:
            let column = values.pick([Column.anyList, Column.strings, Column.doubles, Column.names, Column.anyMap])
            try tx.setValue(newThing(0, &values)[column], at: at(column))
        }
    }
}

/// A schema change on Thing: add a mixed column (its fill possibly too deep), remove or rename
/// an added one, or toggle an index. The original columns keep their positions.
private func randomSchemaChange(_ tx: WriteTransaction, things: TableKey, _ values: inout RandomValues) throws {
    let columns = tx.snapshot.table(things)!.schema.columns
    let added = Array(thingSchema.columns.count..<columns.count)
    let name = "extra\(values.random.next() % 1_000_000)\(values.pick(["", "é", "e\u{301}", "👩‍👩‍👧", "\u{0}"]))"
    guard !columns.contains(where: { $0.name == name }) else { return }
    switch Int.random(in: 0..<4, using: &values.random) {
    case 0:
        let fill = values.chance(15) ? values.chain(levels: maximumValueNesting + 1) : values.mixed(depth: 0)
        try tx.addColumn(ColumnSchema(name, .mixed), to: things, fill: fill)
    case 1:
        guard let column = added.randomElement(using: &values.random) else { return }
        try tx.removeColumn(column, from: things)
    case 2:
        guard let column = added.randomElement(using: &values.random) else { return }
        try tx.renameColumn(column, of: things, to: name)
    default:
        let column = values.pick([2, 5])
        try tx.setIndexed(!columns[column].isIndexed, column: column, of: things)
    }
}

/// The number of elements of a list value.
private func elementCount(_ value: Value) -> Int? {
    if case .list(let elements) = value { return elements.count }
    return nil
}

/// The encoding of one value (NaN payloads and -0.0 included).
private func encodedBytes(_ value: Value) -> [UInt8] {
    var writer = ByteWriter(capacity: 64)
    writer.write(value)
    return writer.bytes
}

/// A Thing with random values in every column (no link: `other` is null).
private func newThing(_ id: Int64, _ values: inout RandomValues) -> [Value] {
    thingSchema.columns.enumerated().map { index, column -> Value in
        if index == 0 { return .int(id) }
        switch column.collection {
        case .single:
            if column.type == .link || (column.isOptional && values.chance(20)) { return .null }
            return values.scalar(column.type)
        case .list, .set:
            let count = values.chance(30) ? 0 : Int.random(in: 1...5, using: &values.random)
            let elements = (0..<count).map { _ in
                column.type == .mixed ? values.mixed(depth: 1) : values.scalar(column.type)
            }
            return column.collection == .list ? .list(elements) : .set(elements)
        case .dictionary:
            var map = ValueMap()
            for _ in 0..<(values.chance(30) ? 0 : Int.random(in: 1...4, using: &values.random)) {
                map[values.string()] = values.mixed(depth: 1)
            }
            return .dictionary(map)
        }
    }
}
