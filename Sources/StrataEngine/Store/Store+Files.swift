import StrataStorage
import StrataSupport

/// The files of a store at a path, as a whole: whether they exist, deleting them, and reading
/// the newest snapshot without keeping the store open.
///
/// A file store at `path` is the page file `path` (or, in a store an earlier Strata wrote, the
/// checkpoint file `path`), the commit log segments `path.log.<16 hex digits>`, the lock file
/// `path.lock` and, after an interrupted first open or conversion, `path.tmp`.
extension Store {
    /// Whether a store exists at `path`: its page file (or checkpoint) or any log segment.
    ///
    /// - Complexity: O(n) in the number of entries of the directory.
    package static func filesExist(atPath path: String) -> Bool {
        FileSystem.exists(path) || ((try? CommitLog.segmentPaths(storePath: path).isEmpty) == false)
    }

    /// Deletes every file of the store at `path`: the page file (or checkpoint), the log segments,
    /// a leftover `.tmp` and the lock file.
    ///
    /// Takes the store's locks first, so a store open in another process is never deleted under
    /// it, and no store at `path` can open in this process meanwhile.
    ///
    /// - Returns: whether any file was deleted.
    /// - Throws: ``StrataError/Code/wrongState`` when the store is open in this process,
    ///   ``StrataError/Code/alreadyOpenInAnotherProcess`` when another process holds it,
    ///   ``StrataError/Code/fileAccess`` when a file cannot be removed.
    package static func deleteFiles(atPath path: String) throws -> Bool {
        try StoreRegistry.shared.whileClosed(.file(path: path)) {
            // The locks are held by these descriptors until they close, after the removals.
            let locked = try lockFiles(atPath: path, exclusive: true)
            var deleted = false
            // The lock file goes last: while any other file remains, a crash leaves a store that
            // still has its lock file.
            let files = [path, StorePages.temporaryPath(for: path)] + (try CommitLog.segmentPaths(storePath: path))
                + [path + ".lock"]
            for file in files where FileSystem.exists(file) {
                try FileSystem.remove(file)
                deleted = true
            }
            if deleted { try FileSystem.syncDirectory(containing: path) }
            withExtendedLifetime(locked) {}
            return deleted
        }
    }

    /// Opens and locks the lock file and the page file of the closed store at `path` (those
    /// that exist, the lock file first), for a call that works on its files without opening it:
    /// `exclusive` to change them, shared to read them beside other readers. The locks last as
    /// long as the returned files are open (the page file is last when it exists).
    ///
    /// - Throws: ``StrataError/Code/alreadyOpenInAnotherProcess`` when another process holds a
    ///   lock that conflicts; the file errors of opening them.
    static func lockFiles(atPath path: String, exclusive: Bool) throws -> [POSIXFile] {
        var locked: [POSIXFile] = []
        for candidate in [path + ".lock", path] where FileSystem.exists(candidate) {
            let file = try POSIXFile(path: candidate, mode: exclusive ? .readWrite : .readOnly)
            guard try exclusive ? file.tryLockExclusive() : file.tryLockShared() else {
                throw StrataError(.alreadyOpenInAnotherProcess,
                                  "the store is open in another process; close it there first", path: path)
            }
            locked.append(file)
        }
        return locked
    }

    /// The newest snapshot of the store at `path`: the open store's when it is open in this
    /// process, otherwise read by opening the store read-only for the call.
    ///
    /// - Throws: as ``open(_:)`` read-only: ``StrataError/Code/fileNotFound`` when there is no
    ///   store, ``StrataError/Code/invalidFileFormat``, ``StrataError/Code/corruptFile``,
    ///   ``StrataError/Code/alreadyOpenInAnotherProcess``.
    package static func newestSnapshot(atPath path: String) throws -> Snapshot {
        if let open = StoreRegistry.shared.existing(.file(path: path)) { return open.currentSnapshot }
        guard filesExist(atPath: path) else {
            throw StrataError(.fileNotFound, "no store exists at this path", path: path)
        }
        return try Store.open(StoreConfiguration(location: .file(path: path), readOnly: true)).currentSnapshot
    }

    /// Writes `snapshot` as a new, compact store at `path`: a page file holding it in as few
    /// pages as it needs and an empty log, under a store identity of its own. The store the
    /// snapshot came from is not touched and may go on being written meanwhile.
    ///
    /// - Throws: ``StrataError/Code/fileExists`` when a store file (the page file or a log
    ///   segment) is at `path` already; ``StrataError/Code/wrongState`` when a store at `path` is
    ///   open in this process; ``StrataError/Code/fileAccess`` when writing fails (what was
    ///   written is removed).
    package static func writeCopy(of snapshot: Snapshot, toPath path: String) throws {
        try StoreRegistry.shared.whileClosed(.file(path: path)) {
            try StorePages.writeCopy(of: snapshot, toPath: path)
        }
    }
}
