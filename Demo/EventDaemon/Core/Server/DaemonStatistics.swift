import Foundation

/// The daemon's counters, shared by the network loop and the writer: events per second,
/// rejections by reason, commit latency, and per-type / per-source window counts (bounded: see
/// ``WindowCounters``).
public final class DaemonStatistics: Sendable {
    private struct State {
        var stored = 0
        var duplicates = 0
        var rejected: [String: Int] = [:]
        var commits = 0
        /// The last commit latencies, in microseconds (a ring of 1,024).
        var latencies: [Double] = []
        var latencyCursor = 0
        /// Stored events per second (epoch second → count), the last minute.
        var perSecond: [Int: Int] = [:]
        var byType: WindowCounters
        var bySource: WindowCounters
        var subscribers = 0
        var connections = 0
        /// Refusals and disconnections by limit (``DaemonStatistics/LimitCounter``).
        var limits: [String: Int] = [:]
        /// Events and alerts deleted by retention since the start.
        var eventsDeleted = 0
        var alertsDeleted = 0
    }

    private let state: Locked<State>
    /// How many of the largest per-type and per-source counts the `stats` reply lists.
    private let topKeys: Int

    /// Counters whose per-type and per-source counts cover the last `counters.windowSeconds`,
    /// tracking at most `counters.maxKeys` keys of `counters.maxKeyBytes` each and reporting the
    /// `counters.topKeys` largest.
    public init(counters: DaemonConfig.Counters) {
        func window() -> WindowCounters {
            WindowCounters(windowSeconds: counters.windowSeconds, maxKeys: counters.maxKeys,
                           maxKeyBytes: counters.maxKeyBytes)
        }
        state = Locked(State(byType: window(), bySource: window()))
        topKeys = counters.topKeys
    }

    /// Counters with the default bounds and a window of `windowSeconds`.
    public convenience init(windowSeconds: Int) {
        var counters = DaemonConfig.Counters()
        counters.windowSeconds = windowSeconds
        self.init(counters: counters)
    }

    /// Counts what retention deleted.
    func noteDeleted(events: Int, alerts: Int) {
        state.withLockedValue { state in
            state.eventsDeleted += events
            state.alertsDeleted += alerts
        }
    }

    func noteCommit(batch: [IngestWriter.Submission], outcomes: [IngestWriter.Outcome], latency: Duration) {
        let now = Date()
        let micros = Double(latency.components.seconds) * 1e6 + Double(latency.components.attoseconds) / 1e12
        state.withLockedValue { state in
            state.commits += 1
            if state.latencies.count < 1_024 {
                state.latencies.append(micros)
            } else {
                state.latencies[state.latencyCursor] = micros
                state.latencyCursor = (state.latencyCursor + 1) % 1_024
            }
            let second = Int(now.timeIntervalSince1970)
            for (submission, outcome) in zip(batch, outcomes) {
                guard outcome == .stored else {
                    state.duplicates += 1
                    continue
                }
                state.stored += 1
                state.perSecond[second, default: 0] += 1
                state.byType.add(submission.event.type, at: now)
                state.bySource.add(submission.event.source, at: now)
            }
            if state.perSecond.count > 120 { state.perSecond = state.perSecond.filter { $0.key > second - 60 } }
        }
    }

    /// Counts a refused line.
    public func noteRejected(_ code: String, count: Int = 1) {
        state.withLockedValue { $0.rejected[code, default: 0] += count }
    }

    /// Counts subscribers as they come (+1) and go (-1).
    public func noteSubscribers(_ delta: Int) { state.withLockedValue { $0.subscribers += delta } }
    /// Counts connections as they open (+1) and close (-1).
    public func noteConnections(_ delta: Int) { state.withLockedValue { $0.connections += delta } }

    /// Counts one refusal or disconnection caused by a limit.
    func noteLimit(_ counter: LimitCounter) { state.withLockedValue { $0.limits[counter.rawValue, default: 0] += 1 } }

    /// How many events each rejection reason refused.
    public var rejections: [String: Int] { state.withLockedValue { $0.rejected } }

    /// The `stats` reply.
    ///
    /// The lock the writer takes for every commit is held only to copy the counters out (their
    /// size is bounded: see ``WindowCounters``); sorting, the top keys and the JSON are built
    /// after it is released.
    ///
    /// - Complexity: O(k log k) for the k tracked keys (at most `counters.maxKeys` per counter),
    ///   O(k) of it under the lock.
    public func snapshot(queueDepth: Int) -> JSONValue {
        let now = Date()
        let second = Int(now.timeIntervalSince1970)
        let copy = state.withLockedValue { state -> State in
            state.byType.expire(now: now)
            state.bySource.expire(now: now)
            return state
        }
        let lastTen = (1...10).reduce(0) { $0 + (copy.perSecond[second - $1] ?? 0) }
        let sorted = copy.latencies.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        let byType = copy.byType.trackedCounts, bySource = copy.bySource.trackedCounts
        let types = WindowCounters.summary(of: byType.counts, other: byType.other, top: topKeys)
        let sources = WindowCounters.summary(of: bySource.counts, other: bySource.other, top: topKeys)
        return .object([
            "stored": .int(Int64(copy.stored)), "duplicates": .int(Int64(copy.duplicates)),
            "eventsPerSecond": .double(Double(lastTen) / 10),
            "rejected": .object(copy.rejected.mapValues { .int(Int64($0)) }),
            "commits": .int(Int64(copy.commits)),
            "commitLatencyMicros": .object(["p50": .double(percentile(0.5)), "p99": .double(percentile(0.99))]),
            "queueDepth": .int(Int64(queueDepth)),
            "subscribers": .int(Int64(copy.subscribers)), "connections": .int(Int64(copy.connections)),
            "retention": .object(["eventsDeleted": .int(Int64(copy.eventsDeleted)),
                                  "alertsDeleted": .int(Int64(copy.alertsDeleted))]),
            "limits": .object(Dictionary(uniqueKeysWithValues: LimitCounter.allCases.map {
                ($0.rawValue, .int(Int64(copy.limits[$0.rawValue] ?? 0)))
            })),
            "byType": Self.counts(types.top), "byTypeOther": .int(Int64(types.other)),
            "bySource": Self.counts(sources.top), "bySourceOther": .int(Int64(sources.other)),
        ])
    }

    /// Counts as a JSON object; keys that are one text in two Unicode forms (two keys to the
    /// counters, one to a JSON object's reader) are added up.
    private static func counts(_ top: [(key: String, count: Int)]) -> JSONValue {
        .object(Dictionary(top.map { ($0.key, JSONValue.int(Int64($0.count))) }) { first, second in
            guard case .int(let a) = first, case .int(let b) = second else { return first }
            return .int(a + b)
        })
    }
}

extension DaemonStatistics {
    /// The counters of the `stats` reply's `limits` object.
    public enum LimitCounter: String, CaseIterable, Sendable {
        /// Connections refused because `maxConnections` were open.
        case connectionsRefused
        /// Connections closed because their queued output passed `maxQueuedOutputBytes`.
        case slowReadersDisconnected
        /// Subscriptions cancelled for using more than `subscriptionBudgetMillis` on one commit or
        /// `initialBudgetMillis` on the initial result.
        case subscriptionsCancelled
        /// TCP clients closed for a missing or wrong `{"auth":…}` first line.
        case authFailures
        /// Connections closed after `idleTimeoutSeconds` without a complete line.
        case idleDisconnected
        /// Connections closed because they took no byte of a page for `pageTimeoutSeconds`.
        case stalledPagesDisconnected
        /// Initial results whose paging was cancelled after `maxPinnedBytes` of later commits.
        case pagingCancelled
        /// Times accepting clients failed with an error libuv passed on (for lack of
        /// descriptors: when its own spare descriptor was gone too, and the listener's closed the
        /// clients waiting unserved; see `StreamListener`). Clients libuv closes itself for lack of
        /// descriptors are not counted.
        case acceptFailures
    }
}
