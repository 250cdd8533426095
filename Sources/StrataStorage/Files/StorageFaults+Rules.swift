#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StrataSupport

/// A file operation that fault injection can fail and a ``StorageObserver`` sees.
package enum StorageOperation: String, Sendable, Hashable, CaseIterable {
    /// Opening a file for writing (``POSIXFile/Mode/readWriteCreate`` or ``POSIXFile/Mode/truncate``).
    case open
    /// A positioned write (`pwrite`).
    case write
    /// `fdatasync` of a file. Faults armed with ``StorageFaults/failNextSyncs(matching:count:)``
    /// also apply here.
    case sync
    /// `fsync` of a directory.
    case directorySync
    /// `rename` (``FileSystem/rename(_:to:)``, ``FileSystem/atomicReplace(_:with:)``).
    case rename
    /// `unlink` (``FileSystem/remove(_:)``).
    case remove
    /// `ftruncate`.
    case truncate
    /// `posix_fallocate`: space reserved past a file's end (``POSIXFile/allocate(from:to:)``).
    case allocate
}

/// What an injected fault does to the operation it hits.
package enum StorageFault: Sendable, Hashable {
    /// The operation does nothing and fails with `errno` (e.g. `EIO`, `ENOSPC`, `EACCES`).
    case fail(errno: Int32)
    /// A write writes the first half of its bytes (at least one), then fails with `errno`: a
    /// write cut short by a full disk or a failing device.
    case shortWrite(errno: Int32)
    /// `pwrite` writes only the first half of the bytes and returns normally, as the kernel may;
    /// the caller's loop must write the rest.
    case partialWrite
}

/// One file operation as a ``StorageObserver`` sees it, after it succeeded (``started(_:path:)``
/// before a sync begins, ``failed(_:path:)`` when a sync fails).
package enum StorageEvent: Sendable {
    /// A file was opened for writing; `truncated` when its old contents were discarded.
    case opened(path: String, truncated: Bool)
    /// `bytes` were written at `offset`.
    case wrote(path: String, offset: UInt64, bytes: [UInt8])
    /// A sync of the file (or, for ``StorageOperation/directorySync``, the directory) at `path`
    /// is about to start: data written before this event is durable once it finishes.
    case started(StorageOperation, path: String)
    /// The sync started by the matching ``started(_:path:)`` succeeded.
    case finished(StorageOperation, path: String)
    /// A sync failed (a real or an injected error): what it was to make durable may be lost.
    case failed(StorageOperation, path: String)
    /// `source` was renamed to `destination`.
    case renamed(source: String, destination: String)
    /// The file at `path` was removed.
    case removed(path: String)
    /// The file at `path` was cut to `length` bytes.
    case truncated(path: String, length: UInt64)
}

/// Sees every successful file operation of the process while installed with
/// ``StorageFaults/install(observer:)``, e.g. to record a trace for a power-loss simulation.
///
/// Called on the thread doing the operation, with no lock of the storage layer held; the
/// observer filters paths itself.
package protocol StorageObserver: AnyObject, Sendable {
    /// Called once per operation, in the order the operations happened on each thread.
    func storage(_ event: StorageEvent)
}

extension StorageFaults {
    struct Rule {
        var operation: StorageOperation
        var pathFragment: String
        var skip: Int
        var remaining: Int
        var fault: StorageFault

        /// Whether the rule applies to `path`: it contains the fragment or, for a fragment ending
        /// in `$`, ends with what precedes the `$`.
        func matches(_ path: String) -> Bool {
            pathFragment.hasSuffix("$") ? path.hasSuffix(pathFragment.dropLast()) : path.contains(pathFragment)
        }
    }

    struct Seam {
        var rules: [Rule] = []
        var observer: (any StorageObserver)?

        var isEngaged: Bool { !rules.isEmpty || observer != nil }
    }

    /// Changes the seam and keeps ``seamEngaged`` in step with it.
    private func updateSeam<R>(_ body: (inout Seam) -> R) -> R {
        seam.withLockedValue { seam in
            let result = body(&seam)
            seamEngaged.store(seam.isEngaged, ordering: .releasing)
            return result
        }
    }

    /// Makes the `count` operations of kind `operation` on paths containing `pathFragment`
    /// that follow the first `skipping` such operations fail with `fault`. A fragment ending in
    /// `$` matches only the paths that end with what precedes it (`"/store.strata$"`: the page
    /// file, not its log segments).
    ///
    /// `skipping` lets a test sweep every position: arm with 0, 1, 2… and run the same work
    /// until ``isArmed(matching:)`` says the fault was never reached.
    package func inject(
        _ fault: StorageFault, on operation: StorageOperation, matching pathFragment: String,
        skipping: Int = 0, count: Int = 1
    ) {
        updateSeam {
            $0.rules.append(Rule(operation: operation, pathFragment: pathFragment, skip: skipping,
                                 remaining: count, fault: fault))
        }
    }

    /// Whether a fault armed with ``inject(_:on:matching:skipping:count:)`` for `pathFragment`
    /// is still waiting for its operation.
    package func isArmed(matching pathFragment: String) -> Bool {
        seam.withLockedValue { $0.rules.contains { $0.pathFragment == pathFragment } }
    }

    /// Removes the rules armed for `pathFragment` with ``inject(_:on:matching:skipping:count:)``.
    package func removeRules(matching pathFragment: String) {
        updateSeam { $0.rules.removeAll { $0.pathFragment == pathFragment } }
    }

    /// Installs `observer` (replacing any other); nil removes it.
    package func install(observer: (any StorageObserver)?) {
        updateSeam { $0.observer = observer }
    }

    /// The fault to apply to `operation` on `path`, consuming it, or nil.
    func fault(for operation: StorageOperation, path: String) -> StorageFault? {
        guard seamEngaged.load(ordering: .acquiring) else { return nil }
        return updateSeam { seam in
            guard !seam.rules.isEmpty else { return nil }
            var fired: StorageFault?
            for index in seam.rules.indices
            where seam.rules[index].operation == operation && seam.rules[index].matches(path) {
                if seam.rules[index].skip > 0 {
                    seam.rules[index].skip -= 1
                } else if fired == nil {
                    fired = seam.rules[index].fault
                    seam.rules[index].remaining -= 1
                }
            }
            seam.rules.removeAll { $0.remaining <= 0 }
            return fired
        }
    }

    /// Reports `event` to the observer, if one is installed; `event` is built only then.
    func observe(_ event: @autoclosure () -> StorageEvent) {
        guard seamEngaged.load(ordering: .acquiring), let observer = seam.withLockedValue({ $0.observer }) else { return }
        observer.storage(event())
    }

    /// The error an injected `fail` or `shortWrite` throws: shaped as the real one would be.
    static func injectedError(_ operation: String, errno code: Int32, path: String, offset: UInt64? = nil) -> StrataError {
        StrataError(.fileAccess, "\(operation) failed: \(String(cString: strerror(code))) (injected fault)",
                    path: path, offset: offset, errno: code)
    }
}
