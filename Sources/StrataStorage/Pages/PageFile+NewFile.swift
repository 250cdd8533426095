import StrataSupport

extension PageFile {
    /// A new page file written in batches of pages (a store's compaction, copy or conversion, whose
    /// pages are made as its trees are walked) and then put in place whole: the pages go to
    /// `<path>.tmp` as they come, and ``finish(checkpoint:afterRename:)`` writes the header slot of generation
    /// 0, syncs once, locks the file and renames it into place with its directory synced, so
    /// `path` holds either what it held before or the whole new file, locked by this process
    /// from the moment it is there. ``abandon()`` removes the `.tmp`.
    package final class NewFile {
        private let path: String
        private let temporary: String
        private let pageSize: Int
        private let storeID: UInt64
        private let transform: any PageTransform
        /// The `.tmp` file, handed over (renamed and locked) by ``finish(checkpoint:afterRename:)`` and closed
        /// by ``abandon()``.
        private var file: POSIXFile?
        private var written = Set<UInt64>()
        private var highest: UInt64 = 1

        /// Starts a new page file at `path` (a file there may be replaced only when `replacing`).
        ///
        /// - Throws: ``StrataError/Code/invalidInput`` when the page size is not a power of two from
        ///   4 KiB to 64 KiB, the transform reserves more than 256 bytes, or a file exists at `path`
        ///   and `replacing` is false; ``StrataError/Code/fileAccess``.
        package init(
            path: String, pageSize: Int = PageFrame.defaultPageSize, storeID: UInt64, replacing: Bool = false,
            transform: any PageTransform = IdentityPageTransform()
        ) throws {
            guard PageFrame.isValidPageSize(pageSize) else {
                throw StrataError(.invalidInput, "page size \(pageSize) is not a power of two from 4096 to 65536 bytes",
                                  path: path)
            }
            guard (0...256).contains(transform.reservedBytes) else {
                throw StrataError(.invalidInput, "a page transform may reserve 0 to 256 bytes per page", path: path)
            }
            guard replacing || !FileSystem.exists(path) else {
                throw StrataError(.invalidInput, "cannot create a page file: \(path) exists", path: path)
            }
            self.path = path
            temporary = path + ".tmp"
            self.pageSize = pageSize
            self.storeID = storeID
            self.transform = transform
            file = try POSIXFile(path: temporary, mode: .truncate)
        }

        /// Writes `pages` (each page at most once over all batches, never a header slot).
        ///
        /// - Throws: ``StrataError/Code/invalidInput`` for an invalid page (see
        ///   ``PageFile/writeCheckpoint(_:fields:)``); ``StrataError/Code/fileAccess``.
        package func write(_ pages: [PageWrite]) throws {
            let order = try checkedOrder(pages, pageCount: UInt64.max, pageSize: pageSize, transform: transform,
                                         path: path)
            for page in pages {
                guard written.insert(page.number).inserted else {
                    throw StrataError(.invalidInput, "a new page file cannot write page \(page.number) of \(path) twice",
                                      path: path)
                }
                highest = max(highest, page.number)
            }
            try writePages(pages, in: order, generation: 0, pageSize: pageSize, transform: transform, to: try open())
        }

        /// Writes the header of generation 0 holding `fields` (whose page count must cover every
        /// page written), syncs, locks the file exclusively (``POSIXFile/tryLockExclusive()``) and
        /// renames it into place, and returns it open and locked at `path`.
        ///
        /// The lock is taken before the rename, so no other process can lock the file at `path`
        /// between its appearance and its owner's lock: a store that replaces its page file
        /// (a compaction, a conversion) keeps the returned file as its own, and another process
        /// opening the store finds every file at `path` locked, even when the store's lock file
        /// was deleted. Keep the returned file to keep the lock, and open no other descriptor of
        /// it in this process (closing any descriptor drops a POSIX lock); a caller that only
        /// writes the file drops it.
        ///
        /// - Parameter afterRename: called, before the failure is thrown, when the directory's sync
        ///   after the rename fails, with the failure and the new file (at `path`, open and locked,
        ///   although a power cut may still undo the rename). A store that replaced its page file
        ///   must then keep the log both files need and may keep the file open to keep its lock.
        /// - Throws: ``StrataError/Code/invalidInput`` when the fields are invalid or a page lies
        ///   past their page count; ``StrataError/Code/alreadyOpenInAnotherProcess`` when another
        ///   process holds a lock on the `.tmp`; ``StrataError/Code/fileAccess``.
        @discardableResult
        package func finish(
            checkpoint fields: PageFileHeader.CheckpointFields,
            afterRename: (StrataError, POSIXFile) -> Void = { _, _ in }
        ) throws -> POSIXFile {
            try validate(fields, pageSize: pageSize, path: path)
            guard highest < fields.pageCount else {
                throw StrataError(.invalidInput, "a new page file of \(fields.pageCount) pages cannot hold page "
                                      + "\(highest) of \(path)", path: path)
            }
            let header = PageFileHeader(generation: 0, pageSize: pageSize, storeID: storeID, checkpoint: fields,
                                        transformID: transform.identifier)
            let file = try open()
            try file.write(header.encodeSlot(), at: 0)
            try file.truncate(to: UInt64(pageSize) * fields.pageCount)
            try file.sync()
            guard try file.tryLockExclusive() else {
                throw StrataError(.alreadyOpenInAnotherProcess, "another process holds the new page file",
                                  path: temporary)
            }
            self.file = nil
            let placed = try file.renamed(to: path)
            do {
                try FileSystem.syncDirectory(containing: path)
            } catch {
                let failure = (error as? StrataError) ?? StrataError(.fileAccess, "\(error)", path: path)
                afterRename(failure, placed)
                throw failure
            }
            return placed
        }

        /// Closes and removes what was written.
        package func abandon() {
            file = nil
            try? FileSystem.remove(temporary)
        }

        private func open() throws -> POSIXFile {
            guard let file else {
                throw StrataError(.invalidInput, "the new page file \(path) was finished or abandoned", path: path)
            }
            return file
        }
    }
}
