import StrataStorage
import StrataSupport

/// What ``Store/verifyFiles(atPath:)`` found: how much it checked and every damaged place.
package struct StoreVerification: Sendable {
    /// The store's page file.
    package var path: String
    /// The page size of the page file (0 when there is none).
    package var pageSize: Int
    /// The pages of the page file's current checkpoint that were read and checked.
    package var pagesChecked: Int
    /// The log records after the checkpoint that were read and checked.
    package var logRecordsChecked: Int
    /// Every damaged place found, page file first, in the order found.
    package var damage: [StoreDamage]
}

extension Store {
    /// Reads and checks every file of the closed store at `path` without opening it: the page
    /// file's header, every page its current checkpoint reaches (the catalog, every node of every
    /// tree, the delta directory, the free list), and every commit log record after the
    /// checkpoint; and returns each damaged place it finds, naming the file and page, instead of
    /// stopping at the first (or stopping the process, as a read of a damaged page through an
    /// open store does).
    ///
    /// The files are locked (shared) for the call, so no process can open the store meanwhile; the
    /// files are opened read-only and nothing is written, and nothing read is kept in memory.
    /// What only a damaged page leads to is not reached, so not checked: a damaged branch's
    /// subtree, every table when the catalog is damaged. The log records are checked as records
    /// (chain, checksum, versions, segments), not replayed. A torn tail of the newest log segment
    /// is not damage (a crash leaves one, and opening cuts it off). A header slot that does not
    /// check out is damage only when it was the current header (its checkpoint removed the log
    /// the other slot needs, see ``PageFile/skippedSlot``): a slot torn by a crash is not.
    ///
    /// - Throws: ``StrataError/Code/wrongState`` when the store is open in this process,
    ///   ``StrataError/Code/alreadyOpenInAnotherProcess`` when another process holds it,
    ///   ``StrataError/Code/fileNotFound`` when no store exists at `path`,
    ///   ``StrataError/Code/invalidFileFormat`` when the file is not a Strata page file (or one
    ///   an earlier Strata wrote: open it read-write once to upgrade it), ``StrataError/Code/fileAccess``
    ///   when a file cannot be read.
    /// - Complexity: O(n) in the size of the page file's checkpoint plus the log.
    package static func verifyFiles(atPath path: String) throws -> StoreVerification {
        try withFilesLockedShared(atPath: path) { posix in
            guard let posix else {
                // No page file (a first open stopped before writing one): only the log to check.
                let records = try verifyLog(path: path, anchor: nil, pageFile: path, pageSize: 0)
                return StoreVerification(path: path, pageSize: 0, pagesChecked: 0, logRecordsChecked: records.count,
                                         damage: records.damage)
            }
            let file: PageFile
            do {
                file = try PageFile.open(file: posix, options: StorePages.options(readOnly: true))
            } catch let error as StrataError where error.code == .corruptFile {
                // Both header slots damaged, or the file shorter than its header says: nothing
                // past the header can be found.
                let damage = StoreDamage(error, pageFile: path, structure: "the header")
                return StoreVerification(path: path, pageSize: 0, pagesChecked: 0, logRecordsChecked: 0,
                                         damage: [damage.withPage(error.offset == 0 ? 0 : nil)])
            }
            var damage = DamageCollector(stopsAtFirst: false, pageFile: path, pageSize: file.pageSize)
            if let slotDamage = file.damagedCurrentSlot(storePath: path) {
                try damage.record(slotDamage, in: "the header")
                return StoreVerification(path: path, pageSize: file.pageSize, pagesChecked: 0, logRecordsChecked: 0,
                                         damage: damage.found)
            }
            let pages = try StorePages.verify(file, damage: &damage)
            let header = file.header
            let anchor = LogAnchor(storeID: header.storeID, version: header.checkpoint.logVersion,
                                   firstSegment: header.checkpoint.firstLogSegment, path: path)
            let log = try verifyLog(path: path, anchor: anchor, pageFile: path, pageSize: file.pageSize)
            return StoreVerification(path: path, pageSize: file.pageSize, pagesChecked: pages,
                                     logRecordsChecked: log.count, damage: damage.found + log.damage)
        }
    }

    /// Checks the log after `anchor`: the number of records, or the damage that stops the check.
    private static func verifyLog(
        path: String, anchor: LogAnchor?, pageFile: String, pageSize: Int
    ) throws -> (count: Int, damage: [StoreDamage]) {
        do {
            return (try CommitLog.verify(storePath: path, anchor: anchor), [])
        } catch let error as StrataError where error.code == .corruptFile || error.code == .invalidFileFormat {
            return (0, [StoreDamage(error, pageFile: pageFile, pageSize: pageSize, structure: "the commit log")])
        }
    }
}

extension StoreDamage {
    /// This damage, naming `page` when it has none.
    fileprivate func withPage(_ page: UInt64?) -> StoreDamage {
        var copy = self
        if copy.page == nil { copy.page = page }
        return copy
    }
}
