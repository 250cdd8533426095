/// The daemon's resource limits (the `limits:` section of the YAML configuration): each has a
/// default, and each refusal or disconnection it causes is counted in the `stats` reply under
/// `limits`.
///
/// ```yaml
/// limits:
///   maxConnections: 1024             # more clients get one error line and are closed
///   maxQueuedOutputBytes: 8388608    # a client that reads slower than its replies are produced is disconnected
///   maxTotalQueuedOutputBytes: 268435456  # past this in all, a client holding more than its share is disconnected
///   initialPageBytes: 262144         # a subscription's initial result is sent in pages of about this size
///   pageTimeoutSeconds: 30           # a client that takes no byte of a page this long is disconnected
///   maxPinnedBytes: 67108864         # commits after a paged initial result's version before its paging is cancelled
///   idleTimeoutSeconds: 300          # a client that completes no line this long (and has no subscription) is closed
///   maxQueryBytes: 4096              # longer subscription queries are refused
///   maxPatternLength: 256            # longer LIKE / CONTAINS / BEGINSWITH / ENDSWITH operands are refused
///   maxTotalPatternLength: 1024      # queries whose pattern operands add up to more are refused
///   subscriptionBudgetMillis: 50     # notifier CPU one subscription may use per commit before it is cancelled
///   initialBudgetMillis: 1000        # CPU a subscription's initial result may use before it is cancelled
///   keepaliveSeconds: 60             # a silent TCP peer is probed after this; one that vanished is closed
/// ```
public struct DaemonLimits: Codable, Sendable, Equatable {
    /// Connections open at once (TCP and Unix socket together).
    public var maxConnections = 1_024
    /// Reply bytes one connection may have waiting to be written (libuv's write queue plus the
    /// updates held back while an initial result is paged).
    public var maxQueuedOutputBytes = 8 << 20
    /// Reply bytes all connections together may have waiting to be written: past it, a
    /// connection holding more than its share (this limit divided by the open connections) is
    /// disconnected as a slow reader when it is next written to.
    public var maxTotalQueuedOutputBytes = 256 << 20
    /// The size at which a page of an initial result is closed (a larger object goes alone).
    public var initialPageBytes = 256 << 10
    /// How long a client paging through an initial result may go without taking a single byte
    /// of it (the kernel taking none of the queued page); then the client is disconnected (the
    /// snapshot the pages come from pins a version, and the store keeps every changeset after a
    /// pinned version). A client that reads, however slowly, is bounded by ``maxPinnedBytes``.
    public var pageTimeoutSeconds = 30
    /// The bytes of commits (their commit-log records) the store may take after the version an
    /// initial result is paged from before that paging is cancelled with an error line: the
    /// pinned version keeps every later changeset, and the leaves it still reads, in memory.
    public var maxPinnedBytes = 64 << 20
    /// How long a connection may go without completing a line while it has no subscription and
    /// no reply pending; then it gets one error line and is closed (a silent client, or one that
    /// sends a byte now and then without a newline, would otherwise hold a connection slot
    /// forever).
    public var idleTimeoutSeconds = 300
    /// The longest subscription query, in UTF-8 bytes (RQL text plus the sort key path).
    public var maxQueryBytes = 4_096
    /// The longest string operand of `LIKE`, `CONTAINS`, `BEGINSWITH` and `ENDSWITH`, in
    /// characters (Unicode scalars).
    public var maxPatternLength = 256
    /// The total length of the string operands of `LIKE`, `CONTAINS`, `BEGINSWITH` and
    /// `ENDSWITH` in one query, in characters: each is evaluated against every object, so many
    /// patterns within ``maxPatternLength`` cost their sum.
    public var maxTotalPatternLength = 1_024
    /// The CPU time the notifier worker may spend evaluating one commit (or several merged) for
    /// one subscription; past it the subscription is cancelled.
    public var subscriptionBudgetMillis = 50
    /// The CPU time one subscription's initial result may take (computed one at a time beside the
    /// notifier worker, so other subscribers' updates do not wait for it); past it the
    /// subscription is cancelled.
    public var initialBudgetMillis = 1_000
    /// How long a TCP connection may be silent before the kernel starts probing its peer (TCP
    /// keepalive, then a probe every ``keepaliveProbeInterval``, ``keepaliveProbes`` times): a
    /// peer that vanished without closing (power, network, a NAT's timeout) is noticed and its
    /// connection closed, subscribed or not, within `keepaliveSeconds` plus a minute.
    public var keepaliveSeconds = 60

    /// Subscriptions per connection: a connection has one; a new `subscribe` replaces it.
    public static let subscriptionsPerConnection = 1

    public init() {}

    public init(from decoder: any Decoder) throws {
        try ConfigKey.refuseUnknown(in: decoder, known: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = DaemonLimits()
        func positive(_ key: CodingKeys, _ fallback: Int) throws -> Int {
            guard let value = try container.decodeIfPresent(Int.self, forKey: key) else { return fallback }
            guard value > 0 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                       debugDescription: "limits.\(key.stringValue) must be positive")
            }
            return value
        }
        maxConnections = try positive(.maxConnections, defaults.maxConnections)
        maxQueuedOutputBytes = try positive(.maxQueuedOutputBytes, defaults.maxQueuedOutputBytes)
        maxTotalQueuedOutputBytes = try positive(.maxTotalQueuedOutputBytes, defaults.maxTotalQueuedOutputBytes)
        initialPageBytes = try positive(.initialPageBytes, defaults.initialPageBytes)
        pageTimeoutSeconds = try positive(.pageTimeoutSeconds, defaults.pageTimeoutSeconds)
        maxPinnedBytes = try positive(.maxPinnedBytes, defaults.maxPinnedBytes)
        idleTimeoutSeconds = try positive(.idleTimeoutSeconds, defaults.idleTimeoutSeconds)
        maxQueryBytes = try positive(.maxQueryBytes, defaults.maxQueryBytes)
        maxPatternLength = try positive(.maxPatternLength, defaults.maxPatternLength)
        maxTotalPatternLength = try positive(.maxTotalPatternLength, defaults.maxTotalPatternLength)
        subscriptionBudgetMillis = try positive(.subscriptionBudgetMillis, defaults.subscriptionBudgetMillis)
        initialBudgetMillis = try positive(.initialBudgetMillis, defaults.initialBudgetMillis)
        keepaliveSeconds = try positive(.keepaliveSeconds, defaults.keepaliveSeconds)
    }

    /// The time between two keepalive probes of a silent TCP peer.
    static let keepaliveProbeInterval = Duration.seconds(10)
    /// Unanswered keepalive probes after which a TCP peer counts as gone.
    static let keepaliveProbes = 6

    /// The per-commit budget of a subscription.
    var subscriptionBudget: Duration { .milliseconds(subscriptionBudgetMillis) }
    /// The budget of a subscription's initial result.
    var initialBudget: Duration { .milliseconds(initialBudgetMillis) }
}
