import StrataStorage
import StrataSupport

/// What ``Store/salvage(atPath:toPath:)`` did: what it copied, what it could not, and why.
package struct StoreSalvage: Sendable {
    /// The damaged store's page file.
    package var path: String
    /// The new store holding what was salvaged.
    package var destination: String
    /// The objects the new store holds, by table name.
    package var objectsSalvaged: [String: Int]
    /// The objects of the page file's checkpoint that sat on damaged pages, as the tree nodes above
    /// them count them, by table name (none when the catalog itself was damaged: then nothing
    /// counts them).
    package var objectsLost: [String: Int]
    /// The log records after the checkpoint applied to what was salvaged.
    package var logRecordsApplied: Int
    /// The log records that could not be applied (they change an object that was lost).
    package var logRecordsSkipped: Int
    /// The links to lost objects removed from salvaged objects (as a deletion of the target does).
    package var linksRemoved: Int
    /// Every damaged place found.
    package var damage: [StoreDamage]
}

extension Store {
    /// Copies every object of the closed, damaged store at `path` that can be read into a new
    /// store at `destination`, skipping what sits on damaged pages, and says what was lost.
    ///
    /// Reads the page file's current checkpoint as ``verifyFiles(atPath:)`` does, keeping the
    /// objects of every leaf that checks out (a damaged branch loses the objects below it; a
    /// damaged catalog loses every table), then applies every commit log record after the
    /// checkpoint that still applies (one that changes a lost object is skipped whole), removes
    /// links to lost objects, and writes the result as a new, compact store at `destination`
    /// (indexes rebuilt from the objects). When the current header slot is damaged, the older
    /// checkpoint is read instead and its log, which is gone, is not applied. The damaged store
    /// is opened read-only, locked for the call, and not changed. Everything salvaged is held in
    /// memory until it is written.
    ///
    /// - Throws: ``StrataError/Code/fileExists`` when a store is at `destination` already; and as
    ///   ``verifyFiles(atPath:)``; ``StrataError/Code/fileAccess`` when writing the new store fails.
    /// - Complexity: O(n log n) in the objects salvaged, plus the log.
    package static func salvage(atPath path: String, toPath destination: String) throws -> StoreSalvage {
        // (No registry check of `destination`: a store open there has files there, which the copy refuses.)
        try withFilesLockedShared(atPath: path) { posix in
            var salvage = StoreSalvage(path: path, destination: destination, objectsSalvaged: [:], objectsLost: [:],
                                       logRecordsApplied: 0, logRecordsSkipped: 0, linksRemoved: 0, damage: [])
            var snapshot = Snapshot.empty
            var anchor: LogAnchor?
            var logIsGone = false
            if let posix {
                do {
                    let file = try PageFile.open(file: posix, options: StorePages.options(readOnly: true))
                    var damage = DamageCollector(stopsAtFirst: false, pageFile: path, pageSize: file.pageSize)
                    if let slotDamage = file.damagedCurrentSlot(storePath: path) {
                        try damage.record(slotDamage, in: "the header")
                        logIsGone = true
                    }
                    salvage.objectsLost = try salvageCheckpoint(file, into: &snapshot, damage: &damage)
                    salvage.damage = damage.found
                    let header = file.header
                    anchor = LogAnchor(storeID: header.storeID, version: header.checkpoint.logVersion,
                                       firstSegment: header.checkpoint.firstLogSegment, path: path)
                } catch let error as StrataError where error.code == .corruptFile {
                    // Both header slots damaged: nothing in the page file can be found.
                    salvage.damage.append(StoreDamage(error, pageFile: path, structure: "the header"))
                    logIsGone = true
                }
            }
            if !logIsGone { try salvageLog(path: path, anchor: anchor, into: &snapshot, salvage: &salvage) }
            salvage.linksRemoved = snapshot.removeLinksToMissingObjects()
            for table in snapshot.allTables { salvage.objectsSalvaged[table.schema.name] = table.count }
            try StorePages.writeCopy(of: snapshot, toPath: destination)
            return salvage
        }
    }

    /// Runs `body` with the store at `path` closed in this process and its lock file and page file
    /// locked shared (so no process can open it meanwhile), passing the page file (nil when the
    /// store has none).
    ///
    /// - Throws: ``StrataError/Code/wrongState``, ``StrataError/Code/alreadyOpenInAnotherProcess``,
    ///   ``StrataError/Code/fileNotFound``, ``StrataError/Code/invalidFileFormat`` for a store an
    ///   earlier Strata wrote; what `body` throws.
    static func withFilesLockedShared<T>(atPath path: String, _ body: (POSIXFile?) throws -> T) throws -> T {
        try StoreRegistry.shared.whileClosed(.file(path: path)) {
            guard filesExist(atPath: path) else {
                throw StrataError(.fileNotFound, "no store exists at this path", path: path)
            }
            let locked = try lockFiles(atPath: path, exclusive: false)
            defer { withExtendedLifetime(locked) {} }
            let pageFile = locked.last.flatMap { $0.path == path ? $0 : nil }
            if let pageFile, try FormatOneStore.detect(storePath: path, checkpoint: pageFile)
                || CheckpointFile.isCheckpoint(pageFile) {
                throw StrataError(.invalidFileFormat, "the store was written by an earlier Strata; open it read-write "
                                      + "once to upgrade it first", path: path)
            }
            return try body(pageFile)
        }
    }

    /// Adds to `snapshot` every table of `file`'s current checkpoint and every object of it that
    /// can be read; returns the objects lost by table name (see
    /// ``SortedTree/salvageEntries(_:_:in:deltas:damage:structure:check:_:)``).
    private static func salvageCheckpoint(
        _ file: PageFile, into snapshot: inout Snapshot, damage: inout DamageCollector
    ) throws -> [String: Int] {
        let header = file.header
        let catalog: StoreCatalog
        let roots: StoreCatalog.Roots
        do {
            roots = try StoreCatalog.Roots.decode(header.checkpoint.roots, path: file.path)
            catalog = try StoreCatalog.decode(file.readImage(roots.catalog, kind: .catalog), path: file.path,
                                              at: roots.catalog, pageSize: file.pageSize)
        } catch {
            try damage.record(error, in: "the catalog")
            return [:]
        }
        var deltas = DeltaDirectory()
        do {
            if let extent = roots.deltaDirectory {
                deltas = try DeltaDirectory.decode(file.readImage(extent, kind: .deltaDirectory),
                                                   pageCount: header.checkpoint.pageCount,
                                                   payloadCapacity: file.layout.payloadCapacity, path: file.path,
                                                   at: extent, pageSize: file.pageSize)
            }
        } catch {
            // The leaves changed by deltas are read as their pages hold them, before those changes.
            try damage.record(error, in: "the delta directory (leaves it changed are salvaged as they were before)")
        }
        snapshot.version = catalog.version
        var lost: [String: Int] = [:]
        for entry in catalog.tables {
            try snapshot.apply(.createTable(entry.key, entry.schema))
            let columns = entry.schema.columns.count
            var rows: [(ObjectKey, Row)] = []
            var tableLost = try SortedTree<ObjectKey, Row>.salvageEntries(
                entry.rows, RowEntryCoding.self, in: file, deltas: deltas.entries, damage: &damage,
                structure: "the objects of table \(entry.schema.name)", check: { $0.count == columns }
            ) { key, row in rows.append((key, row)) }
            for (key, row) in rows {
                // A row whose primary key another salvaged row holds is damage the checks missed.
                do {
                    try snapshot.apply(.insertObject(entry.key, key, row.values))
                } catch {
                    tableLost += 1
                }
            }
            if tableLost > 0 { lost[entry.schema.name] = tableLost }
            let nextObjectKey = max(snapshot.tables[entry.key]?.nextObjectKey ?? 0, entry.nextObjectKey)
            snapshot.tables[entry.key]?.nextObjectKey = nextObjectKey
        }
        snapshot.nextTableKey = max(snapshot.nextTableKey, catalog.nextTableKey)
        return lost
    }

    /// Applies to `snapshot` every record of the log after `anchor` that applies, each whole or not
    /// at all, counting them in `salvage`; damage to the log ends it there.
    private static func salvageLog(
        path: String, anchor: LogAnchor?, into snapshot: inout Snapshot, salvage: inout StoreSalvage
    ) throws {
        let records: [CommitLog.RecoveredRecord]
        do {
            records = try CommitLog.recoveredRecords(storePath: path, anchor: anchor)
        } catch let error as StrataError where error.code == .corruptFile || error.code == .invalidFileFormat {
            salvage.damage.append(StoreDamage(error, structure: "the commit log (no record after the checkpoint "
                                                  + "was applied)"))
            return
        }
        for record in records {
            var next = snapshot
            do {
                let instructions = try record.payload.withUnsafeBytes { raw in
                    var reader = ByteReader(raw, origin: record.path,
                                            originOffset: record.offset + UInt64(LogRecord.headerSize))
                    return try reader.readPayloadInstructions()
                }
                for instruction in instructions { try next.apply(instruction) }
                snapshot = next
                salvage.logRecordsApplied += 1
            } catch {
                salvage.logRecordsSkipped += 1
            }
            snapshot.version = record.version
        }
    }
}

extension Snapshot {
    /// Removes every link to an object that does not exist (as deleting the target would:
    /// see ``Value/removingLinks(to:)``); returns how many were removed.
    mutating func removeLinksToMissingObjects() -> Int {
        var changes: [(PropertyPath, Value, Int)] = []
        for table in allTables where !table.schema.linkColumns.isEmpty {
            table.forEachObject { object, row in
                for column in table.schema.linkColumns {
                    let original = row[column]
                    var value = original
                    var removed = 0
                    original.forEachLink { link in
                        guard self.table(link.table)?.row(link.key) == nil else { return }
                        value = value.removingLinks(to: link)
                        removed += 1
                    }
                    if removed > 0 {
                        changes.append((PropertyPath(table: table.key, object: object, column: column), value, removed))
                    }
                }
            }
        }
        for (path, value, _) in changes { try? apply(.setValue(path, value)) }
        return changes.reduce(0) { $0 + $1.2 }
    }
}
