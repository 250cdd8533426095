import StrataEngine

extension Realm {
    /// A snapshot of what a Realm file costs now: its page file and commit log, its cache, its
    /// checkpoints, and the versions held open with what holds each (see <doc:Statistics>).
    ///
    /// One value describes the file as every Realm of it in this process shares it; read it with
    /// ``Realm/statistics`` or ``Realm/statistics(for:)``. It is a plain value: keep it, compare
    /// two readings, send it to another thread.
    ///
    /// ```swift
    /// let statistics = realm.statistics
    /// for held in statistics.heldVersions where held.versionsBehind > 1_000 {
    ///     print("version \(held.version) is \(held.versionsBehind) commits old, held by",
    ///           held.holders.map(\.description))
    /// }
    /// ```
    public struct Statistics: Sendable {
        /// The page file's path; nil for an in-memory Realm.
        public var path: String?
        /// The newest version of the file (a Realm that has not refreshed may read an older one).
        public var version: UInt64
        /// The commits written since the file was opened in this process.
        public var commits: UInt64
        /// The page file's size in bytes (0 for an in-memory Realm).
        public var fileBytes: UInt64
        /// The bytes of the page file the last checkpoint uses; the rest are free pages, which
        /// later checkpoints reuse (and `Realm.Configuration.shouldCompactOnLaunch` can give back).
        public var fileBytesInUse: UInt64
        /// The bytes of the commit log: every commit since the last checkpoint, all of it waiting
        /// for the next checkpoint to move it into the page file (0 for an in-memory Realm). A
        /// checkpoint starts in the background when it passes
        /// `Realm.Configuration.checkpointLogBytes`; an open after a crash reads all of it back.
        public var logBytes: UInt64
        /// The number of log segment files (a checkpoint seals one and deletes those it covers).
        public var logSegments: Int
        /// The page cache (see `Realm.Configuration.cacheSize`); nil for an in-memory Realm.
        public var cache: Cache?
        /// The checkpoints since the file was opened in this process.
        public var checkpoints: Checkpoints
        /// Every version held open now, oldest first, each with what holds it.
        public var heldVersions: [HeldVersion]
    }
}

extension Realm.Statistics {
    /// The page cache: the memory the file's pages take once read, and how well it serves reads.
    public struct Cache: Sendable, Hashable {
        /// The most bytes the cache holds before it evicts (`Realm.Configuration.cacheSize`).
        public var capacity: Int
        /// The estimated bytes of the pages the cache holds now.
        public var bytesHeld: Int
        /// The reads of a cached page that found it in memory, since open.
        public var hits: UInt64
        /// The pages read from the file, since open: every read that did not find its page in
        /// memory (a first read, or a read after an eviction).
        public var misses: UInt64
        /// The pages evicted to stay under ``capacity``, since open.
        public var evictions: UInt64
        /// The estimated memory of the pages changed since the last checkpoint: changes waiting
        /// for a checkpoint, which the cache cannot evict before it writes them. A checkpoint
        /// starts when they pass a quarter of ``capacity`` (at least 1 MiB).
        public var changedBytesAwaitingCheckpoint: Int
    }

    /// The checkpoints since the file was opened in this process: those Strata starts itself
    /// (in the background when the log or the changed pages grow, and at open after a crash
    /// left a large log) and compactions (`Realm.Configuration.shouldCompactOnLaunch`).
    public struct Checkpoints: Sendable {
        /// How many succeeded.
        public var count: UInt64
        /// How many failed.
        public var failures: UInt64
        /// How long the last successful one took.
        public var lastDuration: Duration?
        /// The error of the last one that failed, if any failed (kept after later successes:
        /// compare ``lastErrorVersion`` with ``Realm/Statistics/version``). A failure in the
        /// background is also logged (see `Realm.Configuration.logger`); the log and the page
        /// file stay valid, and a later commit retries.
        public var lastError: Realm.Error?
        /// The newest version of the file when the last failed checkpoint began.
        public var lastErrorVersion: UInt64?
    }

    /// One version held open, with what holds it and what it costs.
    ///
    /// A version is held while anything reads it: a live Realm until it refreshes (its objects
    /// and collections with it), frozen objects and collections for as long as they live, a
    /// ``ThreadSafeReference`` until it is resolved, a notifier while it computes changes. The
    /// store keeps, for the oldest held version, every changeset since it (notifiers walk them),
    /// and the tree pages it reads that later commits replaced.
    public struct HeldVersion: Sendable, Hashable {
        /// The version.
        public var version: UInt64
        /// How many commits are newer than it.
        public var versionsBehind: UInt64
        /// What holds it, one entry per hold, oldest hold first.
        public var holders: [Holder]
        /// The changesets the store keeps for this version alone, freed when its last holder lets
        /// go: only the oldest held version has any (those after it, up to the next held
        /// version).
        public var changesetsKeptForItAlone: Int
        /// An estimate of the memory only this version keeps alive, in bytes: the changesets it
        /// alone keeps (``changesetsKeptForItAlone``), at the size of their encoded changes.
        ///
        /// What a cleanup frees when every holder of this version lets go is at least this: the
        /// figure is a lower bound. It leaves out the tree pages only this version still reads
        /// (rows and index entries changed or deleted since), which stay in memory while it is
        /// held and are not attributed to one version. No byte of the file is kept alive by a
        /// held version: a checkpoint writes and frees pages and trims the log whatever
        /// versions are held (an older version's pages it frees are read into memory first), so
        /// a held version makes memory grow, never the file. See <doc:Statistics>.
        public var bytesKeptForItAlone: Int
    }

    /// What holds a version open.
    public struct Holder: Sendable, Hashable, CustomStringConvertible {
        /// What kind of holder it is.
        public var kind: Kind
        /// Which one, in words: the thread (its id and name), dispatch queue (its label), actor
        /// or scheduler type of a Realm; the value type of a thread-safe reference.
        public var description: String

        /// Creates a holder.
        public init(kind: Kind, description: String) {
            self.kind = kind
            self.description = description
        }
    }
}

extension Realm.Statistics.Holder {
    /// The kinds of holders; new kinds may be added (match with `==`, not an exhaustive switch).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name.
        public let name: String

        /// A live Realm (its objects and collections with it) on a thread, dispatch queue, actor
        /// or scheduler, at the version it read last: it moves on when it refreshes (by itself
        /// after other threads' commits on a queue, actor or event loop with autorefresh on).
        public static let realm = Kind(name: "realm")
        /// A frozen Realm, object or collection (`freeze()`), and everything frozen from it.
        public static let frozen = Kind(name: "frozen")
        /// A ``ThreadSafeReference`` not resolved yet.
        public static let threadSafeReference = Kind(name: "threadSafeReference")
        /// A change notifier: a collection, object or Realm observer's computation, or the
        /// worker preparing notifications.
        public static let notifier = Kind(name: "notifier")
        /// Anything else (Strata's own machinery).
        public static let other = Kind(name: "other")

        /// The kind's name.
        public var description: String { name }
    }
}
