#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StrataSupport

/// A file descriptor with the handful of POSIX calls the storage layer needs, each turning a
/// failure into a typed ``StrataError`` that names the file.
///
/// Not thread-safe by itself: the commit log serializes appends under the engine's write lock,
/// and `pread` / `fdatasync` are safe to call concurrently with appends at other offsets.
package final class POSIXFile: @unchecked Sendable {
    // Safety: `descriptor` is immutable after init and closed only in deinit; the kernel
    // serializes the system calls made on it. `ownsDescriptor` changes only in
    // `renamed(to:)`, which its caller calls while it holds the only reference.
    /// The path the file was opened with (or renamed to: see ``renamed(to:)``).
    package let path: String
    private let descriptor: Int32
    /// Whether writes are reported to ``StorageFaults`` observers (the power-loss simulator):
    /// false for a scratch file, which no crash state contains.
    private let isObserved: Bool
    /// Whether deinit closes the descriptor: false once ``renamed(to:)`` handed it over.
    private var ownsDescriptor = true

    /// How to open a file.
    package enum Mode: Sendable {
        /// Open an existing file for reading only.
        case readOnly
        /// Open for reading and writing, creating the file when it does not exist.
        case readWriteCreate
        /// Open an existing file for reading and writing.
        case readWrite
        /// Create a new, empty file (truncating one that exists) for reading and writing.
        case truncate
    }

    /// Opens `path` in `mode`.
    ///
    /// - Throws: ``StrataError/Code/fileNotFound`` or ``StrataError/Code/fileAccess``.
    package init(path: String, mode: Mode) throws {
        self.path = path
        let flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWriteCreate: flags = O_RDWR | O_CREAT
        case .readWrite: flags = O_RDWR
        case .truncate: flags = O_RDWR | O_CREAT | O_TRUNC
        }
        if mode != .readOnly, case .fail(let code)? = StorageFaults.shared.fault(for: .open, path: path) {
            throw StorageFaults.injectedError("open", errno: code, path: path)
        }
        let fd = open(path, flags | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = Glibc.errno
            throw StrataError(code == ENOENT ? .fileNotFound : .fileAccess,
                              "cannot open file: \(String(cString: strerror(code)))", path: path, errno: code)
        }
        descriptor = fd
        isObserved = true
        if mode != .readOnly { StorageFaults.shared.observe(.opened(path: path, truncated: mode == .truncate)) }
    }

    /// A new scratch file in `directory`: a file with no name (`O_TMPFILE`; on a file system
    /// without it, a uniquely named file removed at once), read and written by this process only
    /// and gone when closed. Its ``path`` is `directory/(purpose scratch)`, for messages and for
    /// ``StorageFaults`` rules, which its writes still go through (tests make them fail); they are
    /// not reported to observers: no crash state holds a scratch file.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when the file cannot be made.
    package static func scratch(in directory: String, purpose: String) throws -> POSIXFile {
        let label = directory + "/(\(purpose) scratch)"
        if case .fail(let code)? = StorageFaults.shared.fault(for: .open, path: label) {
            throw StorageFaults.injectedError("open", errno: code, path: label)
        }
        // `O_TMPFILE` is a macro Swift does not import: `__O_TMPFILE` (the same bit on every Linux
        // architecture Swift runs on) with `O_DIRECTORY`.
        let temporaryFile: Int32 = 0o2000_0000 | O_DIRECTORY
        var fd = open(directory, O_RDWR | temporaryFile | O_CLOEXEC, 0o600)
        if fd < 0, Glibc.errno == EOPNOTSUPP || Glibc.errno == EISDIR || Glibc.errno == EINVAL {
            var template = Array((directory + "/.strata-scratch-XXXXXX").utf8CString)
            fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            }
        }
        guard fd >= 0 else {
            let code = Glibc.errno
            throw StrataError(.fileAccess, "cannot make a scratch file: \(String(cString: strerror(code)))",
                              path: label, errno: code)
        }
        return POSIXFile(label: label, descriptor: fd)
    }

    private init(label: String, descriptor: Int32, isObserved: Bool = false) {
        path = label
        self.descriptor = descriptor
        self.isObserved = isObserved
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    /// Renames the file to `destination`, atomically replacing what is there (see
    /// ``FileSystem/rename(_:to:)``: the caller syncs the directory), and returns it under its
    /// new path: the same descriptor, so the same locks, and writes that name (and faults and
    /// observers match) `destination` from then on.
    ///
    /// Renaming an open file rather than closing it first keeps a lock taken before the rename
    /// (a file put in place of a store's file locked, so no other process can lock it first).
    /// Call it on a file no one else holds a reference to, and use only the file returned after
    /// it: this one gives up its descriptor to it.
    ///
    /// - Throws: ``StrataError/Code/fileAccess``; the descriptor is then closed.
    package func renamed(to destination: String) throws -> POSIXFile {
        ownsDescriptor = false
        let moved = POSIXFile(label: destination, descriptor: descriptor, isObserved: isObserved)
        try FileSystem.rename(path, to: destination)
        return moved
    }

    /// The raw descriptor, for `flock`.
    var fileDescriptor: Int32 { descriptor }

    private func failure(_ operation: String, offset: UInt64? = nil) -> StrataError {
        let code = Glibc.errno
        return StrataError(.fileAccess, "\(operation) failed: \(String(cString: strerror(code)))",
                           path: path, offset: offset, errno: code)
    }

    /// The file's size in bytes.
    package func size() throws -> UInt64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("fstat") }
        return UInt64(info.st_size)
    }

    /// The device and inode of the open file, to compare with ``FileSystem/identity(of:)``.
    package func identity() throws -> FileIdentity {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("fstat") }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Writes all of `bytes` at `offset`, retrying short writes and `EINTR`.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        // An injected fault may cut the first `pwrite` short, and then fail (see StorageFault).
        var firstLimit = bytes.count
        var failAfterFirst: Int32?
        switch StorageFaults.shared.fault(for: .write, path: path) {
        case .fail(let code)?: throw StorageFaults.injectedError("write", errno: code, path: path, offset: offset)
        case .shortWrite(let code)?: (firstLimit, failAfterFirst) = (max(1, bytes.count / 2), code)
        case .partialWrite?: firstLimit = max(1, bytes.count / 2)
        case nil: break
        }
        var done = 0
        while done < bytes.count {
            let count = done == 0 ? min(firstLimit, bytes.count) : bytes.count - done
            let written = pwrite(descriptor, bytes.baseAddress! + done, count, off_t(offset) + off_t(done))
            if written < 0 {
                if Glibc.errno == EINTR { continue }
                throw failure("write", offset: offset + UInt64(done))
            }
            done += written
            if let code = failAfterFirst {
                if isObserved {
                    StorageFaults.shared.observe(.wrote(path: path, offset: offset, bytes: Array(bytes[..<done])))
                }
                throw StorageFaults.injectedError("write", errno: code, path: path, offset: offset + UInt64(done))
            }
        }
        if isObserved { StorageFaults.shared.observe(.wrote(path: path, offset: offset, bytes: Array(bytes))) }
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { (raw) throws in try write(raw, at: offset) }
    }

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    package func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        try buffer.withUnsafeMutableBytes { (raw) throws in
            while done < count {
                let got = pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if got < 0 {
                    if Glibc.errno == EINTR { continue }
                    throw failure("read", offset: offset + UInt64(done))
                }
                if got == 0 { break }
                done += got
            }
        }
        buffer.removeLast(count - done)
        return buffer
    }

    /// Reads the whole file.
    package func readAll() throws -> [UInt8] {
        try read(count: Int(try size()), at: 0)
    }

    /// Flushes the file's data to stable storage (`fdatasync`).
    ///
    /// Goes through ``StorageFaults`` so tests can make it fail.
    package func sync() throws {
        if StorageFaults.shared.consumeSyncFailure(path: path) {
            StorageFaults.shared.observe(.failed(.sync, path: path))
            throw StrataError(.fileAccess, "fdatasync failed: injected fault", path: path, errno: EIO)
        }
        if case .fail(let code)? = StorageFaults.shared.fault(for: .sync, path: path) {
            StorageFaults.shared.observe(.failed(.sync, path: path))
            throw StorageFaults.injectedError("fdatasync", errno: code, path: path)
        }
        StorageFaults.shared.observe(.started(.sync, path: path))
        while fdatasync(descriptor) != 0 {
            if Glibc.errno == EINTR { continue }
            let error = failure("fdatasync")
            StorageFaults.shared.observe(.failed(.sync, path: path))
            throw error
        }
        StorageFaults.shared.observe(.finished(.sync, path: path))
    }

    /// Cuts the file to `length` bytes.
    package func truncate(to length: UInt64) throws {
        if case .fail(let code)? = StorageFaults.shared.fault(for: .truncate, path: path) {
            throw StorageFaults.injectedError("ftruncate", errno: code, path: path, offset: length)
        }
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw failure("ftruncate", offset: length) }
        StorageFaults.shared.observe(.truncated(path: path, length: length))
    }

    /// Reserves the file's blocks from `offset` to `length` (`posix_fallocate`), growing the file
    /// to `length` bytes that read as zeros. The commit log reserves space ahead of its appends so
    /// that a later `fdatasync` of an append has no file size or block allocation to journal
    /// (about a third cheaper on ext4). Call only with `offset` at or past the file's end.
    ///
    /// Best effort: returns false, changing nothing, when the file system cannot (no
    /// `fallocate`, a full disk, an injected fault); appends then grow the file as they go.
    /// Reported to ``StorageFaults`` observers as the size change it is.
    package func allocate(from offset: UInt64, to length: UInt64) -> Bool {
        guard length > offset else { return true }
        if StorageFaults.shared.fault(for: .allocate, path: path) != nil { return false }
        guard posix_fallocate(descriptor, off_t(offset), off_t(length - offset)) == 0 else { return false }
        if isObserved { StorageFaults.shared.observe(.truncated(path: path, length: length)) }
        return true
    }

    /// Takes an exclusive, non-blocking POSIX record lock (`fcntl(F_SETLK)`) on the whole file.
    ///
    /// A POSIX lock belongs to the process and is not inherited by child processes, so a child
    /// started by another thread cannot keep a closed store locked (an `flock` lock would live
    /// on in the child until it execs). Only one descriptor per file may be used in a process:
    /// closing any descriptor of the file releases the lock, which the store registry ensures.
    ///
    /// - Returns: false when another process holds it.
    package func tryLockExclusive() throws -> Bool {
        try tryLock(type: F_WRLCK)
    }

    /// Takes a shared, non-blocking POSIX record lock (`fcntl(F_SETLK)`, `F_RDLCK`) on the whole
    /// file: it excludes exclusive locks of other processes, not other shared ones. Works on a
    /// file opened read-only. The caveats of ``tryLockExclusive()`` apply.
    ///
    /// - Returns: false when another process holds an exclusive lock on it.
    package func tryLockShared() throws -> Bool {
        try tryLock(type: F_RDLCK)
    }

    private func tryLock(type: Int32) throws -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        if fcntl(descriptor, F_SETLK, &lock) == 0 { return true }
        if Glibc.errno == EACCES || Glibc.errno == EAGAIN { return false }
        throw failure("fcntl(F_SETLK)")
    }
}

/// Which file a path or a descriptor refers to: its device and inode numbers.
package struct FileIdentity: Hashable, Sendable {
    /// The device number.
    package var device: UInt64
    /// The inode number.
    package var inode: UInt64
}

/// File-system operations on paths.
package enum FileSystem {
    /// The identity of the file at `path` now, or nil when there is none.
    package static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Whether a file exists at `path`.
    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Atomically replaces `destination` with `source` and syncs the directory, so the rename
    /// itself survives power loss.
    package static func atomicReplace(_ source: String, with destination: String) throws {
        try rename(source, to: destination)
        try syncDirectory(containing: destination)
    }

    /// Atomically replaces `destination` with `source` (`rename`), without syncing the directory:
    /// until ``syncDirectory(containing:)`` returns, a power cut may undo it.
    package static func rename(_ source: String, to destination: String) throws {
        if case .fail(let code)? = StorageFaults.shared.fault(for: .rename, path: source) {
            throw StorageFaults.injectedError("rename to \(destination)", errno: code, path: source)
        }
        guard Glibc.rename(source, destination) == 0 else {
            let code = Glibc.errno
            throw StrataError(.fileAccess, "rename to \(destination) failed: \(String(cString: strerror(code)))",
                              path: source, errno: code)
        }
        StorageFaults.shared.observe(.renamed(source: source, destination: destination))
    }

    /// Removes the file at `path`; a missing file is not an error.
    package static func remove(_ path: String) throws {
        if case .fail(let code)? = StorageFaults.shared.fault(for: .remove, path: path) {
            throw StorageFaults.injectedError("unlink", errno: code, path: path)
        }
        if unlink(path) == 0 {
            StorageFaults.shared.observe(.removed(path: path))
            return
        }
        guard Glibc.errno == ENOENT else {
            let code = Glibc.errno
            throw StrataError(.fileAccess, "unlink failed: \(String(cString: strerror(code)))", path: path, errno: code)
        }
    }

    /// Syncs the directory that holds `path`, making creations, renames and removals durable.
    package static func syncDirectory(containing path: String) throws {
        let directory = parentDirectory(of: path)
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = Glibc.errno
            throw StrataError(.fileAccess, "cannot open directory: \(String(cString: strerror(code)))",
                              path: directory, errno: code)
        }
        defer { close(fd) }
        if StorageFaults.shared.consumeSyncFailure(path: directory) {
            throw StrataError(.fileAccess, "fsync failed: injected fault", path: directory, errno: EIO)
        }
        if case .fail(let code)? = StorageFaults.shared.fault(for: .directorySync, path: directory) {
            throw StorageFaults.injectedError("fsync of directory", errno: code, path: directory)
        }
        StorageFaults.shared.observe(.started(.directorySync, path: directory))
        guard fsync(fd) == 0 else {
            let code = Glibc.errno
            throw StrataError(.fileAccess, "fsync of directory failed: \(String(cString: strerror(code)))",
                              path: directory, errno: code)
        }
        StorageFaults.shared.observe(.finished(.directorySync, path: directory))
    }

    /// The names (not paths) of the entries of the directory that holds `path` whose names
    /// start with `prefix`, sorted.
    package static func siblings(of path: String, withPrefix prefix: String) throws -> [String] {
        let directory = parentDirectory(of: path)
        guard let handle = opendir(directory) else {
            let code = Glibc.errno
            throw StrataError(.fileAccess, "cannot list directory: \(String(cString: strerror(code)))",
                              path: directory, errno: code)
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            // Read the name in place, up to its NUL: `entry.pointee` would copy the whole
            // 256-byte `d_name`, and a short entry at the end of readdir's buffer has fewer
            // bytes behind it than that (a read past the buffer, which crashed strata-eventd).
            let name = String(cString: (UnsafeRawPointer(entry) + Self.direntNameOffset).assumingMemoryBound(to: CChar.self))
            if name.hasPrefix(prefix) { names.append(name) }
        }
        return names.sorted()
    }

    private static let direntNameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

    /// The directory part of `path` (`.` for a bare file name).
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    package static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
