extension DaemonConfig {
    /// The accepted range of each setting (see Demo/EventDaemon/README.md).
    public enum Bounds {
        /// `maxLineBytes`: a line must hold an event; the store keeps strings up to 16 MiB.
        public static let maxLineBytes = 64...(16 << 20)
        /// `maxDepth`: the store nests collections in a mixed payload up to 100 levels.
        public static let maxDepth = 1...100
        /// `maxBatch`: events per group commit.
        public static let maxBatch = 1...100_000
        /// `maxQueue`: queued events.
        public static let maxQueue = 1...10_000_000
        /// `checkpointBytes`: from 64 KiB to 64 GiB.
        public static let checkpointBytes = (64 << 10)...(64 << 30)
        /// `retention.maxAgeSeconds`: from a second to a hundred years.
        public static let maxAgeSeconds = 1...3_155_760_000
        /// `retention.maxEvents` and `retention.maxAlerts`.
        public static let maxKept = 1...1_000_000_000_000
        /// `retention.batchSize`: objects one deleting transaction removes.
        public static let retentionBatchSize = 1...100_000
        /// `store.cacheBytes`: from 1 MiB to 1 TiB.
        public static let cacheBytes = (1 << 20)...(1 << 40)
        /// `counters.windowSeconds`: up to a day.
        public static let windowSeconds = 1...86_400
        /// `counters.topKeys`: the counts one `stats` reply lists per counter.
        public static let topKeys = 1...1_000
        /// `counters.maxKeys`: keys tracked per counter (memory: up to 60 buckets of them).
        public static let maxKeys = 1...100_000
        /// `counters.maxKeyBytes`: the longest key tracked.
        public static let maxKeyBytes = 16...4_096
        /// `limits.maxConnections`: each connection holds a descriptor and a session.
        public static let maxConnections = 1...1_000_000
        /// `limits.maxQueuedOutputBytes`: from one line's worth to 1 GiB per connection.
        public static let maxQueuedOutputBytes = 4_096...(1 << 30)
        /// `limits.maxTotalQueuedOutputBytes`: from one line's worth to 64 GiB in all.
        public static let maxTotalQueuedOutputBytes = 4_096...(64 << 30)
        /// `limits.initialPageBytes`: a page is one line, so at most the largest line a client reads.
        public static let initialPageBytes = 1_024...(64 << 20)
        /// `limits.pageTimeoutSeconds`: up to an hour (a waiting page pins a version).
        public static let pageTimeoutSeconds = 1...3_600
        /// `limits.idleTimeoutSeconds`: up to a day.
        public static let idleTimeoutSeconds = 1...86_400
        /// `limits.maxQueryBytes`: up to 1 MiB of RQL.
        public static let maxQueryBytes = 1...(1 << 20)
        /// `limits.maxPatternLength`: up to 64 Ki characters.
        public static let maxPatternLength = 1...65_536
        /// `limits.subscriptionBudgetMillis`: up to a minute of CPU per commit.
        public static let subscriptionBudgetMillis = 1...60_000
        /// `limits.maxTotalPatternLength`: up to 1 Mi characters.
        public static let maxTotalPatternLength = 1...(1 << 20)
        /// `limits.initialBudgetMillis`: up to ten minutes of CPU for an initial result.
        public static let initialBudgetMillis = 1...600_000
        /// `limits.maxPinnedBytes`: from 64 KiB to 1 TiB of commits after a paged version.
        public static let maxPinnedBytes = 65_536...(1 << 40)
        /// `limits.keepaliveSeconds`: up to two hours (the kernel's usual default).
        public static let keepaliveSeconds = 1...7_200
    }

    /// Checks every setting against its range and the rules' names.
    ///
    /// - Throws: ``DaemonConfigError`` naming the first setting out of range, an empty `types`
    ///   list, or an alert rule with an empty or repeated name or a name holding `:`.
    public func validate() throws(DaemonConfigError) {
        try Self.check("maxLineBytes", maxLineBytes, in: Bounds.maxLineBytes)
        try Self.check("maxDepth", maxDepth, in: Bounds.maxDepth)
        try Self.check("maxBatch", maxBatch, in: Bounds.maxBatch)
        try Self.check("maxQueue", maxQueue, in: Bounds.maxQueue)
        try Self.check("checkpointBytes", checkpointBytes, in: Bounds.checkpointBytes)
        try Self.check("counters.windowSeconds", counters.windowSeconds, in: Bounds.windowSeconds)
        try Self.check("counters.topKeys", counters.topKeys, in: Bounds.topKeys)
        try Self.check("counters.maxKeys", counters.maxKeys, in: Bounds.maxKeys)
        try Self.check("counters.maxKeyBytes", counters.maxKeyBytes, in: Bounds.maxKeyBytes)
        try Self.check("limits.maxConnections", limits.maxConnections, in: Bounds.maxConnections)
        try Self.check("limits.maxQueuedOutputBytes", limits.maxQueuedOutputBytes, in: Bounds.maxQueuedOutputBytes)
        try Self.check("limits.maxTotalQueuedOutputBytes", limits.maxTotalQueuedOutputBytes,
                       in: Bounds.maxTotalQueuedOutputBytes)
        try Self.check("limits.initialPageBytes", limits.initialPageBytes, in: Bounds.initialPageBytes)
        try Self.check("limits.pageTimeoutSeconds", limits.pageTimeoutSeconds, in: Bounds.pageTimeoutSeconds)
        try Self.check("limits.idleTimeoutSeconds", limits.idleTimeoutSeconds, in: Bounds.idleTimeoutSeconds)
        try Self.check("limits.maxQueryBytes", limits.maxQueryBytes, in: Bounds.maxQueryBytes)
        try Self.check("limits.maxPatternLength", limits.maxPatternLength, in: Bounds.maxPatternLength)
        try Self.check("limits.subscriptionBudgetMillis", limits.subscriptionBudgetMillis,
                       in: Bounds.subscriptionBudgetMillis)
        try Self.check("limits.maxTotalPatternLength", limits.maxTotalPatternLength, in: Bounds.maxTotalPatternLength)
        try Self.check("limits.initialBudgetMillis", limits.initialBudgetMillis, in: Bounds.initialBudgetMillis)
        try Self.check("limits.maxPinnedBytes", limits.maxPinnedBytes, in: Bounds.maxPinnedBytes)
        try Self.check("limits.keepaliveSeconds", limits.keepaliveSeconds, in: Bounds.keepaliveSeconds)
        if let maxAge = retention.maxAgeSeconds { try Self.check("retention.maxAgeSeconds", maxAge, in: Bounds.maxAgeSeconds) }
        if let maxEvents = retention.maxEvents { try Self.check("retention.maxEvents", maxEvents, in: Bounds.maxKept) }
        if let maxAlerts = retention.maxAlerts { try Self.check("retention.maxAlerts", maxAlerts, in: Bounds.maxKept) }
        try Self.check("retention.batchSize", retention.batchSize, in: Bounds.retentionBatchSize)
        try Self.check("store.cacheBytes", store.cacheBytes, in: Bounds.cacheBytes)
        guard store.durability == "full" || store.durability == "normal" else {
            throw DaemonConfigError(key: "store.durability", "'\(store.durability)' is not full or normal")
        }
        if let types {
            guard !types.isEmpty else { throw DaemonConfigError(key: "types", "an empty list would refuse every event") }
            if let index = types.firstIndex(of: "") { throw DaemonConfigError(key: "types[\(index)]", "must not be empty") }
        }
        var names = Set<String>()
        for (index, rule) in alerts.enumerated() {
            guard !rule.name.isEmpty else { throw DaemonConfigError(key: "alerts[\(index)].name", "must not be empty") }
            // An alert's id is `<rule>:<event id>`; with a `:` in rule names, rules `a` and `a:b`
            // would give the events `b:c` and `c` (ids clients choose) the same alert id.
            guard !rule.name.contains(":") else {
                throw DaemonConfigError(key: "alerts[\(index)].name", "must not contain ':' (it separates the rule from "
                                        + "the event id in an alert's id)")
            }
            guard names.insert(rule.name).inserted else {
                throw DaemonConfigError(key: "alerts[\(index)].name", "'\(rule.name)' names two rules")
            }
        }
    }

    /// Throws unless `value` lies in `range`.
    static func check(_ key: String, _ value: Int, in range: ClosedRange<Int>) throws(DaemonConfigError) {
        guard range.contains(value) else {
            throw DaemonConfigError(key: key, "\(value) is out of range: it must be \(range.lowerBound)...\(range.upperBound)")
        }
    }
}
