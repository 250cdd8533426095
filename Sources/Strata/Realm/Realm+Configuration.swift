import Foundation
import Logging
import StrataEngine
import StrataSupport

extension Realm {
    /// The block a Realm runs when it opens a file whose schema version is older than the
    /// configuration's.
    public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

    /// Decides, from the file's size and the bytes its data uses, whether to compact it when it
    /// is opened for the first time in the process (see ``Configuration/shouldCompactOnLaunch``).
    public typealias ShouldCompactOnLaunch = @Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool

    /// How to open a Realm, as Realm Swift's `Realm.Configuration`.
    ///
    /// `fileURL` and `inMemoryIdentifier` are mutually exclusive: setting one clears the other.
    ///
    /// Linux note: there is no runtime list of classes, so when `objectTypes` is nil the schema is
    /// every model class this process has used so far; list the classes in `objectTypes` to have
    /// all of them checked (and migrated) when the Realm opens. A class first used later gets its
    /// table on its first write.
    public struct Configuration: Sendable {
        /// The file the Realm lives in (with its log and lock file beside it).
        public var fileURL: URL? {
            didSet { if fileURL != nil { inMemoryIdentifier = nil } }
        }
        /// A name for a Realm that lives in memory only, shared by every Realm opened with it
        /// in this process while one is open.
        public var inMemoryIdentifier: String? {
            didSet { if inMemoryIdentifier != nil { fileURL = nil } }
        }
        /// Not supported yet: opening a Realm with a key throws `Realm.Error.fail`.
        public var encryptionKey: Data?
        /// Whether writes are refused; the file must exist.
        public var readOnly: Bool
        /// The version of the schema the model classes describe.
        public var schemaVersion: UInt64
        /// Run when an older file is opened; see ``Migration``.
        public var migrationBlock: MigrationBlock?
        /// Delete the file instead of failing when the schema changed without a migration. Not
        /// allowed with `readOnly` (opening throws `Realm.Error.fail`, as in Realm).
        public var deleteRealmIfMigrationNeeded: Bool
        /// Called when the file is opened for the first time in the process, with the size of
        /// the file and the bytes its data uses; returning true compacts the file (rewrites it
        /// without its free pages) before the Realm is returned. Not allowed with `readOnly`.
        ///
        /// ```swift
        /// config.shouldCompactOnLaunch = { totalBytes, usedBytes in
        ///     totalBytes > 100 * 1024 * 1024 && Double(usedBytes) / Double(totalBytes) < 0.5
        /// }
        /// ```
        public var shouldCompactOnLaunch: ShouldCompactOnLaunch?
        /// The model classes in the Realm; nil means every class this process has used.
        public var objectTypes: [ObjectBase.Type]?
        /// The most versions that may be pinned at once (nil or 0: unlimited).
        ///
        /// Every pinned version counts: live Realms, frozen Realms, objects and collections,
        /// thread-safe references and notifiers. As in Realm, the check is made when a write
        /// begins: while more versions are active than the limit, the write fails with
        /// ``Realm/Error/tooManyActiveVersions`` ("Number of active versions (N) in the Realm
        /// exceeded the limit of M", thrown by `write` or `commitWrite`), so no new version is
        /// made. `freeze()` never fails (it cannot throw in Realm Swift either). Opening a Realm
        /// or refreshing to a version no one pins yet also fails (opening throws; `refresh()`
        /// stays on its version) when the limit is reached.
        public var maximumNumberOfActiveVersions: UInt?
        /// When a commit counts as done (Strata's own setting; Realm always syncs): `.full`
        /// (the default) syncs before returning, `.normal` survives process crashes but may
        /// lose the last commits on power loss. See `Durability`.
        public var durability: Durability
        /// Turns on event recording (``Realm/events``); nil (the default) leaves it off.
        public var eventConfiguration: EventConfiguration?
        /// The most memory, in bytes, the file's pages may take in memory once read (Strata's own
        /// setting; Realm maps the file instead): 256 MiB by default. Past it, the pages least
        /// recently used are dropped and read again from the file when next needed, so a Realm
        /// far larger than memory can be read and written. Changes not yet checkpointed are kept
        /// beside it until a checkpoint writes them, and one starts when they pass a quarter of
        /// this size (at least 1 MiB); versions older than the file's last checkpoint that a
        /// frozen Realm or a live object still holds are kept too. 0 (or less) keeps no leaf
        /// once it is used, which works but reads the file for every access. The first open of a file in the
        /// process decides it for every Realm of that file. See <doc:Durability>.
        public var cacheSize: Int = StoreConfiguration.defaultCacheSize
        /// The size of the commit log, in bytes, past which a checkpoint starts in the background
        /// (Strata's own setting; Realm writes its file in place and has no log): 64 MiB by
        /// default. The log holds every commit since the last checkpoint, so this bounds what
        /// an open after a crash reads back; a smaller value checkpoints more often. Releasing the
        /// last Realm of the file checkpoints it too, and so does an open that replayed the log,
        /// so only an open after a crash replays. The first open of a file in the process decides
        /// it. See <doc:Durability>.
        public var checkpointLogBytes: UInt64 = 64 << 20
        /// Where Strata reports what the application should hear about and cannot be thrown to
        /// it (Strata's own setting): a checkpoint that failed in the background is logged here
        /// as an error, with the file's path and the error (its ``Realm/Statistics`` keep it
        /// too). nil (the default) logs through a `Logger(label: "strata")` made at the moment
        /// of the failure, so through whatever logging system the application bootstrapped; to
        /// silence Strata, pass a logger whose level is above `.error`. The Realm opened last
        /// for a file in the process decides it. See <doc:Statistics>.
        public var logger: Logger?
        /// Whether the file is checkpointed when its last Realm is released, and by an open that
        /// replayed the log before it returns (on by default). Not part of Strata's API: the
        /// benchmark harness turns it off to measure restarts as they were without them.
        @_spi(Benchmarks) public var restartCheckpoints = true

        /// Creates a configuration; every parameter has Realm's default.
        public init(
            fileURL: URL? = Configuration.defaultFileURL, inMemoryIdentifier: String? = nil,
            encryptionKey: Data? = nil, readOnly: Bool = false, schemaVersion: UInt64 = 0,
            migrationBlock: MigrationBlock? = nil, deleteRealmIfMigrationNeeded: Bool = false,
            shouldCompactOnLaunch: ShouldCompactOnLaunch? = nil,
            objectTypes: [ObjectBase.Type]? = nil, maximumNumberOfActiveVersions: UInt? = nil,
            durability: Durability = .full
        ) {
            self.fileURL = inMemoryIdentifier == nil ? fileURL : nil
            self.inMemoryIdentifier = inMemoryIdentifier
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.durability = durability
        }

        /// `default.strata` in the current directory.
        public static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.strata")
        }

        private static let defaultBox = LockedValueBox(Configuration())

        /// The configuration `Realm()` uses. Setting it affects later opens only.
        public static var defaultConfiguration: Configuration {
            get { defaultBox.withLockedValue { $0 } }
            set { defaultBox.withLockedValue { $0 = newValue } }
        }

        /// The engine configuration this Realm configuration describes.
        var storeConfiguration: StoreConfiguration {
            let location: StoreConfiguration.Location
            if let inMemoryIdentifier {
                location = .inMemory(identifier: inMemoryIdentifier)
            } else {
                location = .file(path: (fileURL ?? Self.defaultFileURL).path)
            }
            var configuration = StoreConfiguration(location: location, durability: durability, readOnly: readOnly,
                                                   cacheSize: cacheSize)
            configuration.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions.map { Int($0) }
            configuration.checkpointThreshold = checkpointLogBytes
            configuration.checkpointsOnRelease = restartCheckpoints
            configuration.checkpointsAfterReplay = restartCheckpoints
            return configuration
        }
    }
}
