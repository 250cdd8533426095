import Foundation
import Yams

/// The daemon's rules and limits, read from a YAML file (`--config`).
///
/// ```yaml
/// maxLineBytes: 65536        # longer lines are refused without being buffered
/// maxDepth: 32               # deeper JSON nesting is refused
/// maxBatch: 512              # events per group commit
/// maxQueue: 20000            # queued events before clients get "overloaded"
/// checkpointBytes: 67108864  # the commit log size at which a checkpoint starts
/// types: [login, purchase]   # accepted event types (omit: any)
/// counters:
///   windowSeconds: 60        # per-type and per-source counts over this sliding window
///   topKeys: 20              # the largest counts listed by `stats` (the rest: byTypeOther, bySourceOther)
///   maxKeys: 1000            # distinct keys tracked per counter (a new one replaces the smallest)
///   maxKeyBytes: 256         # longer types and sources are cut to this many bytes
/// alerts:
///   - name: big-purchase
///     query: "type == 'purchase' AND payload['amount'] > 1000"
/// limits:                    # see DaemonLimits
///   maxConnections: 1024
/// ```
///
/// Loading refuses what the daemon could not run with: an unknown setting, a wrong type, a limit
/// outside its range (see ``validate()``), each as a ``DaemonConfigError`` naming the setting.
public struct DaemonConfig: Codable, Sendable, Equatable {
    /// The longest line accepted, in bytes; longer lines are refused without being buffered.
    public var maxLineBytes: Int = 65_536
    /// The deepest JSON nesting a line may have.
    public var maxDepth: Int = 32
    /// The most events one group commit stores.
    public var maxBatch: Int = 512
    /// The most events queued for the writer; beyond it clients get `overloaded`.
    public var maxQueue: Int = 20_000
    /// The size of the store's commit log (every segment since the last checkpoint) at which a
    /// checkpoint starts in the background (the Realm's `checkpointLogBytes`).
    public var checkpointBytes: Int = 64 << 20
    /// The event types accepted (nil: any).
    public var types: [String]?
    /// The per-type and per-source counters.
    public var counters = Counters()
    /// The alert rules, checked against every stored event.
    public var alerts: [AlertRule] = []
    /// Connections, output, subscriptions and query cost (see ``DaemonLimits``).
    public var limits = DaemonLimits()
    /// How long events and alerts are kept (see ``Retention``; by default, for ever).
    public var retention = Retention()
    /// The store's cache, durability and audit (see ``Store``).
    public var store = Store()

    /// The sliding window of the per-type and per-source counts.
    ///
    /// Types and sources come from clients, so what is tracked is bounded: at most `maxKeys`
    /// distinct keys in the window (a new key takes the place of the smallest, whose events
    /// count as other), each at most
    /// `maxKeyBytes` long (longer ones are cut), and `stats` lists the `topKeys` largest counts
    /// with the rest in `byTypeOther` / `bySourceOther`.
    public struct Counters: Codable, Sendable, Equatable {
        /// The window, in seconds.
        public var windowSeconds: Int = 60
        /// How many of the largest counts the `stats` reply lists per counter.
        public var topKeys: Int = 20
        /// The most distinct keys tracked per counter in the window.
        public var maxKeys: Int = 1_000
        /// The longest key tracked, in UTF-8 bytes (a longer one is cut and ends in `…`).
        public var maxKeyBytes: Int = 256
        public init() {}
    }

    /// An alert rule: every stored event matching the RQL `query` raises an `Alert`.
    public struct AlertRule: Codable, Sendable, Equatable {
        /// The rule's name (unique; part of each alert's id).
        public var name: String
        /// The RQL an event must match to raise the alert.
        public var query: String

        /// A rule named `name` raising an alert for events matching `query`.
        public init(name: String, query: String) {
            self.name = name
            self.query = query
        }

        public init(from decoder: any Decoder) throws {
            try ConfigKey.refuseUnknown(in: decoder, known: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            query = try container.decode(String.self, forKey: .query)
        }
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        try ConfigKey.refuseUnknown(in: decoder, known: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = DaemonConfig()
        maxLineBytes = try container.decodeIfPresent(Int.self, forKey: .maxLineBytes) ?? defaults.maxLineBytes
        maxDepth = try container.decodeIfPresent(Int.self, forKey: .maxDepth) ?? defaults.maxDepth
        maxBatch = try container.decodeIfPresent(Int.self, forKey: .maxBatch) ?? defaults.maxBatch
        maxQueue = try container.decodeIfPresent(Int.self, forKey: .maxQueue) ?? defaults.maxQueue
        checkpointBytes = try container.decodeIfPresent(Int.self, forKey: .checkpointBytes) ?? defaults.checkpointBytes
        types = try container.decodeIfPresent([String].self, forKey: .types)
        counters = try container.decodeIfPresent(Counters.self, forKey: .counters) ?? defaults.counters
        alerts = try container.decodeIfPresent([AlertRule].self, forKey: .alerts) ?? []
        limits = try container.decodeIfPresent(DaemonLimits.self, forKey: .limits) ?? defaults.limits
        retention = try container.decodeIfPresent(Retention.self, forKey: .retention) ?? defaults.retention
        store = try container.decodeIfPresent(Store.self, forKey: .store) ?? defaults.store
    }

}

extension DaemonConfig.Counters {
    public init(from decoder: any Decoder) throws {
        try ConfigKey.refuseUnknown(in: decoder, known: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self()
        windowSeconds = try container.decodeIfPresent(Int.self, forKey: .windowSeconds) ?? defaults.windowSeconds
        topKeys = try container.decodeIfPresent(Int.self, forKey: .topKeys) ?? defaults.topKeys
        maxKeys = try container.decodeIfPresent(Int.self, forKey: .maxKeys) ?? defaults.maxKeys
        maxKeyBytes = try container.decodeIfPresent(Int.self, forKey: .maxKeyBytes) ?? defaults.maxKeyBytes
    }
}
