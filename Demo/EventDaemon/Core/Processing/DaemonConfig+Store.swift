import Strata

extension DaemonConfig {
    /// How long events and alerts are kept (the `retention:` section): nothing is deleted unless
    /// a bound is set.
    ///
    /// ```yaml
    /// retention:
    ///   maxAgeSeconds: 604800   # events received longer ago are deleted
    ///   maxEvents: 10000000     # beyond this many, the oldest are deleted
    ///   maxAlerts: 100000       # beyond this many, the oldest alerts are deleted
    ///   batchSize: 5000         # the most objects one deleting transaction removes
    /// ```
    ///
    /// The ingest writer deletes between group commits, at most `batchSize` objects of each class
    /// a time, oldest first, so that ingest is never held up for long; a store far past a bound
    /// shrinks back by `batchSize` a commit. Subscribers see the deletions as change sets.
    public struct Retention: Codable, Sendable, Equatable {
        /// Events received longer ago than this are deleted (nil: no age bound).
        public var maxAgeSeconds: Int?
        /// The most events kept (nil: no count bound).
        public var maxEvents: Int?
        /// The most alerts kept (nil: no count bound); alerts older than `maxAgeSeconds` go too.
        public var maxAlerts: Int?
        /// The most objects of a class one deleting transaction removes.
        public var batchSize: Int = 5_000

        public init() {}

        /// Whether any bound is set.
        public var isBounded: Bool { maxAgeSeconds != nil || maxEvents != nil || maxAlerts != nil }
    }

    /// The store's settings (the `store:` section).
    ///
    /// ```yaml
    /// store:
    ///   cacheBytes: 268435456   # memory for the store's pages once read
    ///   durability: full        # full: an ack survives power loss; normal: a process crash
    ///   audit: true             # false: no audit store (<data>.events)
    /// ```
    public struct Store: Codable, Sendable, Equatable {
        /// The page cache's size, in bytes (the Realm's `cacheSize`).
        public var cacheBytes: Int = 256 << 20
        /// `full` or `normal` (the Realm's `durability`).
        public var durability: String = "full"
        /// Whether each group commit is recorded in the audit store.
        public var audit = true

        public init() {}

        /// The Realm's durability for ``durability``.
        public var realmDurability: Durability { durability == "normal" ? .normal : .full }
    }
}

extension DaemonConfig.Retention {
    public init(from decoder: any Decoder) throws {
        try ConfigKey.refuseUnknown(in: decoder, known: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxAgeSeconds = try container.decodeIfPresent(Int.self, forKey: .maxAgeSeconds)
        maxEvents = try container.decodeIfPresent(Int.self, forKey: .maxEvents)
        maxAlerts = try container.decodeIfPresent(Int.self, forKey: .maxAlerts)
        batchSize = try container.decodeIfPresent(Int.self, forKey: .batchSize) ?? Self().batchSize
    }
}

extension DaemonConfig.Store {
    public init(from decoder: any Decoder) throws {
        try ConfigKey.refuseUnknown(in: decoder, known: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self()
        cacheBytes = try container.decodeIfPresent(Int.self, forKey: .cacheBytes) ?? defaults.cacheBytes
        durability = try container.decodeIfPresent(String.self, forKey: .durability) ?? defaults.durability
        audit = try container.decodeIfPresent(Bool.self, forKey: .audit) ?? defaults.audit
    }
}
