import Foundation
import StrataEngine
import StrataQuery
import StrataStorage

/// A store file opened by name, without model classes: its schema comes from the file. What the
/// `strata` tool (in `Demo/`) reads, queries, imports and checks stores through.
///
/// Not part of Strata's API: SPI for the tool (`@_spi(StrataTool) import Strata`), with no
/// semantic-versioning promise. Confined to the thread that made it, as a `Realm` is.
@_spi(StrataTool)
public final class StoreInspector {
    /// The store's file.
    public let fileURL: URL
    let realm: Realm

    /// Opens the store at `fileURL` with the schema version it has, holding it as a `Realm`
    /// does (no other process can open it meanwhile).
    ///
    /// - Throws: ``Realm/Error``: `invalidDatabase` when there is no store at `fileURL` or it is
    ///   not one, `alreadyOpen` when another process holds it, `fileAccess` when it cannot be
    ///   read (or, unless `readOnly`, written).
    public init(fileURL: URL, readOnly: Bool) throws {
        self.fileURL = fileURL
        let version = try schemaVersionAtURL(fileURL)
        realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, readOnly: readOnly,
                                                             schemaVersion: version, objectTypes: []))
    }

    /// Compacts the closed store at `fileURL` (its page file rewritten without free pages) and
    /// returns its size, page file and log together, before and after.
    public static func compact(fileURL: URL) throws -> (before: UInt64, after: UInt64) {
        let before = try onDiskBytes(of: fileURL)
        let version = try schemaVersionAtURL(fileURL)
        let configuration = Realm.Configuration(fileURL: fileURL, schemaVersion: version,
                                                shouldCompactOnLaunch: { _, _ in true }, objectTypes: [])
        _ = try Realm(configuration: configuration)
        return (before, try onDiskBytes(of: fileURL))
    }

    /// The bytes of the store's files: the page file and the commit log's segments.
    public static func onDiskBytes(of fileURL: URL) throws -> UInt64 {
        let directory = fileURL.deletingLastPathComponent()
        let name = fileURL.lastPathComponent
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return entries.filter { $0 == name || $0.hasPrefix(name + ".log.") }
            .reduce(0) { total, entry in
                let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(entry).path)
                return total + ((attributes?[.size] as? NSNumber)?.uint64Value ?? 0)
            }
    }

    // MARK: - Schema

    /// One class stored in the file.
    public struct StoredClass: Sendable {
        /// Its schema as the file has it.
        public let schema: ObjectSchema
        /// How many objects it has.
        public let count: Int
        /// The properties of other classes that link to it (`Person.dogs`): its backlinks.
        public let linkedFrom: [String]
    }

    /// The classes stored in the file, by name (Strata's own tables left out).
    public var classes: [StoredClass] {
        let snapshot = realm.readSnapshot
        let tables = snapshot.allTables.filter { !$0.schema.name.hasPrefix("__") }
        return tables.map { table in
            let linkedFrom = tables.flatMap { origin in
                origin.schema.columns.filter { $0.linkTarget == table.schema.name }.map { "\(origin.schema.name).\($0.name)" }
            }
            return StoredClass(schema: DynamicSchema.objectSchema(table.schema), count: table.count, linkedFrom: linkedFrom)
        }.sorted { $0.schema.className < $1.schema.className }
    }

    /// The file formats this Strata reads and writes, which an opened store's files are in (a
    /// store of an earlier format is upgraded when it is first opened for writing).
    public static var formatVersions: (pageFile: UInt32, commitLog: UInt32) {
        (PageFileHeader.formatVersion, LogSegment.formatVersion)
    }

    /// The store's statistics (sizes, cache, checkpoints, versions held).
    public var statistics: Realm.Statistics { realm.statistics }

    // MARK: - Queries

    /// The objects of `className` that match `filter` (a Realm Query Language predicate, with
    /// `$0`… bound to `arguments`; every object when nil), sorted by `sort` and at most `limit`.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidQuery` for a bad query (the parser's message),
    ///   `invalidInput` for a class the file does not have.
    public func objects(of className: String, filter: String?, arguments: [Any] = [],
                        sort: [(keyPath: String, ascending: Bool)] = [], limit: Int? = nil) throws -> InspectedObjects {
        let snapshot = realm.readSnapshot
        let table = try self.table(named: className, in: snapshot)
        do {
            var query = try RQLParser.parse(filter ?? "TRUEPREDICATE", arguments: arguments.map { .value(QueryArguments.stored($0)) })
            query.sort += sort.map { SortKey(QueryKeyPath($0.keyPath), ascending: $0.ascending) }
            if let limit { query.limit = min(query.limit ?? limit, limit) }
            let compiled = try CompiledQuery(query, snapshot: snapshot, table: table.key)
            return InspectedObjects(snapshot: snapshot, table: table.key, keys: compiled.run(on: snapshot))
        } catch {
            throw Realm.Error(.invalidQuery, "\(error)")
        }
    }

    func table(named className: String, in snapshot: Snapshot) throws -> Table {
        guard let table = snapshot.table(named: className), !className.hasPrefix("__") else {
            throw Realm.Error(.invalidInput, "The store has no class '\(className)'")
        }
        return table
    }

    // MARK: - Checks

    /// What the pages' checksums cannot show: rows the primary-key index or another index does
    /// not find, links to missing objects, backlinks that do not match the links, embedded
    /// objects without one owner. Empty when all agree; at most `limit` entries, each naming
    /// the class and object.
    public func consistencyProblems(limit: Int = 100) -> [String] {
        realm.readSnapshot.consistencyProblems(limit: limit).map(\.description)
    }

    /// Writes a consistent, compacted copy of the store (the version it reads) to `destination`,
    /// which must not exist.
    public func writeCopy(to destination: URL) throws {
        try realm.writeCopy(toFile: destination)
    }
}

/// The objects a query of ``StoreInspector`` found, read as JSON values on demand.
@_spi(StrataTool)
public struct InspectedObjects: RandomAccessCollection {
    let snapshot: Snapshot
    let table: TableKey
    let keys: [ObjectKey]

    /// The class's property names, in the file's column order.
    public var propertyNames: [String] { snapshot.table(table)?.schema.columns.map(\.name) ?? [] }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    /// The object at `position` as a JSON object (see ``InspectionJSON``).
    public subscript(position: Int) -> [String: Any] {
        InspectionJSON(snapshot: snapshot).object(table, keys[position]) as? [String: Any] ?? [:]
    }
}
