/// When a commit counts as done.
public enum Durability: Sendable, Hashable {
    /// The commit's log record is on stable storage (`fdatasync`) before the commit returns: it
    /// survives a process crash and power loss. Concurrent commits share one sync (group
    /// commit). The default, as in Realm.
    case full
    /// The commit's log record has been handed to the operating system (`write`) before the
    /// commit returns, and the log is synced at every checkpoint: it survives a process crash,
    /// but the last commits may be lost on power loss. The same guarantee as SQLite in WAL mode
    /// with `synchronous = NORMAL` (GRDB's default).
    case normal
}

/// How to open a ``Store``.
package struct StoreConfiguration: Sendable, Hashable {
    /// Where the store lives.
    package enum Location: Sendable, Hashable {
        /// Files: the page file at `path` (e.g. `default.strata`), the commit log segments
        /// `path.log.*` and the lock file `path.lock` beside it.
        case file(path: String)
        /// Memory only, shared by every open of the same identifier in this process while one
        /// is open. Writes no files.
        case inMemory(identifier: String)
    }

    /// Where the store lives.
    package var location: Location
    /// When a commit counts as done; see ``Durability``.
    package var durability: Durability
    /// The most versions that may be pinned at once (nil or 0: unlimited). ``Store/pin()`` of a
    /// version beyond it throws ``StrataError/Code/tooManyActiveVersions``; pins that cannot fail
    /// (frozen Realms, notifiers) still count, and while they exceed it ``Store/beginWrite()``
    /// throws the same error, so no new version is made.
    package var maximumNumberOfActiveVersions: Int?
    /// A checkpoint starts in the background once the current log segment exceeds this many
    /// bytes, which bounds the log that reopening must replay.
    package var checkpointThreshold: UInt64
    /// Whether writes are refused. The store must already exist.
    package var readOnly: Bool
    /// The most memory, in bytes, the page file's tree leaves (rows, index and backlink entries)
    /// may take while resident before the least recently used are evicted (read again from the
    /// file when next used). Leaves changed since the last checkpoint start one when they pass a
    /// quarter of it (see ``NodeCache/dirtyLimit``). See ``NodeCache`` for what it does not bound.
    package var cacheSize: Int

    /// Whether the store checkpoints when its last user lets go (every Realm, frozen object,
    /// thread-safe reference and notifier of it), so the next open replays nothing (see
    /// ``Store/checkpointOnRelease()``). On by default; tests that study the log a closed store
    /// leaves turn it off.
    package var checkpointsOnRelease = true
    /// Whether an open that replayed log records checkpoints them before it returns (see
    /// ``Store/checkpointAfterRecovery()``). On by default.
    package var checkpointsAfterReplay = true

    /// The default ``cacheSize``: 256 MiB.
    package static let defaultCacheSize = 256 << 20

    /// How many bytes of encoded instructions a write transaction keeps in memory before it moves
    /// them to a scratch file (see ``InstructionSpool``); also the size of the pieces its commit
    /// streams into the log. 256 KiB by default.
    package var instructionSpoolBytes = 256 << 10

    /// How far ahead of its appends a store that syncs every commit (``Durability/full``) reserves
    /// space in the commit log: 64 KiB (hundreds of small commits per reservation, so the one sync
    /// that journals a new size is rare), or a quarter of a smaller ``checkpointThreshold``, at
    /// least 4 KiB. Opening a store reads the reserved zeros after its last record, so the step
    /// stays small. See ``CommitLog/preallocate(inStepsOf:)``.
    var logPreallocationStep: UInt64 {
        min(64 << 10, max(4 << 10, checkpointThreshold / 4))
    }

    /// Creates a configuration.
    package init(
        location: Location, durability: Durability = .full, maximumNumberOfActiveVersions: Int? = nil,
        checkpointThreshold: UInt64 = 64 << 20, readOnly: Bool = false, cacheSize: Int = defaultCacheSize
    ) {
        self.location = location
        self.durability = durability
        self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
        self.checkpointThreshold = checkpointThreshold
        self.readOnly = readOnly
        self.cacheSize = cacheSize
    }

    /// A file store at `path`.
    package static func file(_ path: String, durability: Durability = .full) -> StoreConfiguration {
        StoreConfiguration(location: .file(path: path), durability: durability)
    }

    /// An in-memory store named `identifier`.
    package static func inMemory(_ identifier: String) -> StoreConfiguration {
        StoreConfiguration(location: .inMemory(identifier: identifier))
    }
}
