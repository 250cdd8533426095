#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Testing
@testable import StrataEngine
import StrataStorage
import StrataSupport
// The shared test helpers (temporary directories, seeded random numbers, threads) for every
// file of this target.
@_exported import StrataTestSupport

// MARK: - Store identifiers

/// A unique in-memory store identifier.
func uniqueMemoryIdentifier(_ label: String = #function) -> String {
    "engine-tests-\(label)-\(UUID().uuidString)"
}

// MARK: - Store kinds

/// The kinds of store a test can run against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case fileFull
    case fileNormal

    var testDescription: String { rawValue }

    /// A configuration of this kind whose files (if any) live in `directory`.
    func configuration(in directory: TemporaryDirectory, name: String = "store.strata") -> StoreConfiguration {
        switch self {
        case .inMemory: .inMemory(uniqueMemoryIdentifier(directory.name))
        case .fileFull: .file(directory.file(name), durability: .full)
        case .fileNormal: .file(directory.file(name), durability: .normal)
        }
    }
}

// MARK: - Opening and releasing stores

/// A weak reference to a store, to see when the last strong reference is gone.
final class WeakStoreReference: @unchecked Sendable {
    // Safety: written once on the test's thread before any other thread can see the object,
    // then only read; `weak` loads are atomic.
    weak var store: Store?
}

/// Opens the store described by `configuration`, runs `body` with it, drops every reference
/// the test holds and waits (bounded) until the store is deallocated, so that the next
/// ``Store/open(_:)`` of the same path really reopens the files.
///
/// `body` must not return anything that keeps the store alive (a transaction or a pin).
func withStore<R>(_ configuration: StoreConfiguration, _ body: (Store) throws -> R) throws -> R {
    let reference = WeakStoreReference()
    let result: Result<R, any Error>
    do {
        let store = try Store.open(configuration)
        reference.store = store
        result = Result { try body(store) }
    }
    // A background checkpoint may still hold the store for a moment.
    let released = waitUntil(timeout: 20) { reference.store == nil }
    #expect(released, "the store was not released within 20 s; reopening would reuse the old instance")
    if released { waitUntilClosed(configuration.location) }
    return try result.get()
}

extension StoreConfiguration {
    /// A file store at `path` whose close leaves the log as its commits wrote it: no checkpoint
    /// when its last user lets go, nor after an open that replayed (the tests of recovery, upgrades,
    /// verification and damaged logs need a log after the close).
    static func keepingTheLog(_ path: String, durability: Durability = .full) -> StoreConfiguration {
        var configuration = StoreConfiguration.file(path, durability: durability)
        configuration.checkpointsOnRelease = false
        configuration.checkpointsAfterReplay = false
        return configuration
    }
}

/// Returns once no store at `location` is closing in this process: the `deinit` of a store
/// whose last reference went (its release checkpoint, see ``Store/checkpointOnRelease()``) has
/// ended, so the store's files are as the close left them.
func waitUntilClosed(_ location: StoreConfiguration.Location) {
    // `whileClosed` waits for a closing store; it throws only when one is open again.
    _ = try? StoreRegistry.shared.whileClosed(location) {}
}

// MARK: - Damaged copies

/// Writes a copy of the closed store at `original` to `path`: `pageFile` as its page file (the
/// original's bytes, damaged by the caller) and the original's log segments as they are.
func writeStoreCopy(of original: String, to path: String, pageFile: Data) throws {
    try pageFile.write(to: URL(fileURLWithPath: path))
    for segment in try CommitLog.segmentPaths(storePath: original) {
        try FileManager.default.copyItem(atPath: segment, toPath: path + segment.dropFirst(original.count))
    }
}

// MARK: - Errors

/// Expects `body` to throw a ``StrataError`` with `code`, and returns it.
@discardableResult
func expectStrataError<R>(
    _ code: StrataError.Code, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> StrataError? {
    do {
        _ = try body()
        Issue.record("expected StrataError(\(code)), nothing was thrown. \(comment.map { "\($0)" } ?? "")",
                     sourceLocation: sourceLocation)
        return nil
    } catch let error as StrataError {
        #expect(error.code == code, "expected code \(code), got \(error). \(comment.map { "\($0)" } ?? "")",
                sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected StrataError(\(code)), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: - A table of items

/// Item: 0 id (int, primary key); the store-file tests write and count these.
let idItemSchema = TableSchema(name: "Item", columns: [ColumnSchema("id", .int)], primaryKey: "id")

/// Writes items `ids` to the store, one commit each, creating the table when needed.
func insertItems(_ ids: ClosedRange<Int>, into store: Store) throws {
    let table = try store.currentSnapshot.tableKey(named: "Item")
        ?? store.write { tx in try tx.createTable(idItemSchema) }
    for id in ids {
        try store.write { tx in _ = try tx.insertObject(into: table, values: [.int(Int64(id))]) }
    }
}

/// The number of items in the store's newest version.
func itemCount(_ store: Store) -> Int {
    store.currentSnapshot.table(named: "Item")?.count ?? 0
}

// MARK: - Snapshot contents

/// Everything a snapshot holds, by table name: the rows by object key.
func contents(of snapshot: Snapshot) -> [String: [ObjectKey: Row]] {
    var result: [String: [ObjectKey: Row]] = [:]
    for table in snapshot.allTables {
        var rows: [ObjectKey: Row] = [:]
        table.forEachObject { key, row in rows[key] = row }
        result[table.schema.name] = rows
    }
    return result
}

extension Table {
    /// The object keys whose `column` equals `value`, by scanning every row.
    func scan(column: Int, equals value: Value) -> [ObjectKey] {
        var found: [ObjectKey] = []
        forEachObject { key, row in if row[column] == value { found.append(key) } }
        return found
    }
}

/// A link value to `key` in `table`.
func link(_ table: TableKey, _ key: ObjectKey) -> Value { .link(ObjectLink(table: table, key: key)) }

/// A property path.
func path(_ table: TableKey, _ object: ObjectKey, _ column: Int) -> PropertyPath {
    PropertyPath(table: table, object: object, column: column)
}

/// Every non-empty backlink list of a snapshot, by table name and object.
func backlinkState(of snapshot: Snapshot) -> [String: [ObjectKey: [Backlink]]] {
    var result: [String: [ObjectKey: [Backlink]]] = [:]
    for table in snapshot.allTables {
        var links: [ObjectKey: [Backlink]] = [:]
        for key in table.objectKeys {
            let backlinks = table.backlinks(to: key)
            if !backlinks.isEmpty { links[key] = backlinks }
        }
        result[table.schema.name] = links
    }
    return result
}

/// The schemas of a snapshot's tables, by key.
func schemas(of snapshot: Snapshot) -> [TableKey: TableSchema] {
    Dictionary(uniqueKeysWithValues: snapshot.allTables.map { ($0.key, $0.schema) })
}
