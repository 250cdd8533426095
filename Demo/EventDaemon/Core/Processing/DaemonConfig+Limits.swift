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
///   pageTimeoutSeconds: 30           # a client that leaves a page unread this long is disconnected
///   idleTimeoutSeconds: 300          # a client that completes no line this long (and has no subscription) is closed
///   maxQueryBytes: 4096              # longer subscription queries are refused
///   maxPatternLength: 256            # longer LIKE / CONTAINS / BEGINSWITH / ENDSWITH operands are refused
///   subscriptionBudgetMillis: 50     # notifier CPU one subscription may use per commit before it is cancelled
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
    /// How long a page of an initial result may wait for the client to read it; then the client
    /// is disconnected as a slow reader (the snapshot the pages come from pins a version, and the
    /// store keeps every changeset after a pinned version).
    public var pageTimeoutSeconds = 30
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
    /// The CPU time the notifier worker may spend evaluating one commit (or several merged) for
    /// one subscription; past it the subscription is cancelled.
    public var subscriptionBudgetMillis = 50
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
        idleTimeoutSeconds = try positive(.idleTimeoutSeconds, defaults.idleTimeoutSeconds)
        maxQueryBytes = try positive(.maxQueryBytes, defaults.maxQueryBytes)
        maxPatternLength = try positive(.maxPatternLength, defaults.maxPatternLength)
        subscriptionBudgetMillis = try positive(.subscriptionBudgetMillis, defaults.subscriptionBudgetMillis)
        keepaliveSeconds = try positive(.keepaliveSeconds, defaults.keepaliveSeconds)
    }

    /// The time between two keepalive probes of a silent TCP peer.
    static let keepaliveProbeInterval = Duration.seconds(10)
    /// Unanswered keepalive probes after which a TCP peer counts as gone.
    static let keepaliveProbes = 6

    /// The per-commit budget of a subscription.
    var subscriptionBudget: Duration { .milliseconds(subscriptionBudgetMillis) }
}
