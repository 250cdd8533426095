import Metrics
import Strata
import StrataSupport

/// Publishes a Realm file's ``Strata/Realm/Statistics`` as swift-metrics gauges and counters,
/// on demand (``report()``) or on a timer (``run(every:)``).
///
/// Every metric carries the dimension `path` (the file's path, or `memory:<identifier>` for an
/// in-memory Realm). The names, with what each holds (see `Realm.Statistics` for the meaning of
/// each figure):
///
/// | Name | Kind | Value |
/// |---|---|---|
/// | `strata_file_bytes` | gauge | the page file's size |
/// | `strata_file_bytes_in_use` | gauge | the bytes of it the last checkpoint uses |
/// | `strata_log_bytes` | gauge | the commit log, every commit since the last checkpoint |
/// | `strata_log_segments` | gauge | the log's segment files |
/// | `strata_cache_capacity_bytes` | gauge | the cache's capacity |
/// | `strata_cache_bytes` | gauge | the bytes the cache holds |
/// | `strata_cache_hits_total` | counter | cached pages read from memory |
/// | `strata_cache_misses_total` | counter | pages read from the file |
/// | `strata_cache_evictions_total` | counter | pages evicted |
/// | `strata_changed_bytes_awaiting_checkpoint` | gauge | changed pages' memory until a checkpoint |
/// | `strata_commits_total` | counter | commits |
/// | `strata_checkpoints_total` | counter | successful checkpoints |
/// | `strata_checkpoint_failures_total` | counter | failed checkpoints |
/// | `strata_checkpoint_last_duration_seconds` | gauge | the last successful checkpoint's duration |
/// | `strata_versions_held` | gauge | versions held open |
/// | `strata_holds` | gauge | holds on them (`kind`: realm, frozen, threadSafeReference, notifier, other) |
/// | `strata_oldest_held_version_age_commits` | gauge | commits newer than the oldest held version |
/// | `strata_bytes_kept_for_held_versions` | gauge | the sum of their `bytesKeptForItAlone` |
///
/// Counters advance by what the statistics gained since the previous report (from zero again
/// when the file was closed and reopened in between). A report while no Realm of the file is
/// open in the process publishes nothing.
///
/// ```swift
/// import StrataMetrics
///
/// let reporter = StrataMetricsReporter(configuration: config)
/// Task { await reporter.run(every: .seconds(10)) }   // until the task is cancelled
/// ```
public final class StrataMetricsReporter: Sendable {
    /// The Realm file reported.
    public let configuration: Realm.Configuration
    private let dimensions: [(String, String)]
    private let factory: any MetricsFactory
    /// What the counters were advanced to at the previous report, by metric name.
    private let reported = LockedValueBox<[String: UInt64]>([:])

    /// A reporter of the file `configuration` names, through `factory` (by default the one
    /// `MetricsSystem.bootstrap` installed).
    public init(configuration: Realm.Configuration, factory: (any MetricsFactory)? = nil) {
        self.configuration = configuration
        self.factory = factory ?? MetricsSystem.factory
        let path = configuration.inMemoryIdentifier.map { "memory:" + $0 }
            ?? (configuration.fileURL ?? Realm.Configuration.defaultFileURL).path
        dimensions = [("path", path)]
    }

    /// Publishes the file's statistics now.
    ///
    /// - Returns: the statistics published; nil when no Realm of the file is open in the process
    ///   (then nothing is published).
    @discardableResult
    public func report() -> Realm.Statistics? {
        guard let statistics = Realm.statistics(for: configuration) else { return nil }
        gauge("strata_file_bytes", statistics.fileBytes)
        gauge("strata_file_bytes_in_use", statistics.fileBytesInUse)
        gauge("strata_log_bytes", statistics.logBytes)
        gauge("strata_log_segments", statistics.logSegments)
        if let cache = statistics.cache {
            gauge("strata_cache_capacity_bytes", cache.capacity)
            gauge("strata_cache_bytes", cache.bytesHeld)
            gauge("strata_changed_bytes_awaiting_checkpoint", cache.changedBytesAwaitingCheckpoint)
        }
        var totals: [(String, UInt64)] = [
            ("strata_commits_total", statistics.commits),
            ("strata_checkpoints_total", statistics.checkpoints.count),
            ("strata_checkpoint_failures_total", statistics.checkpoints.failures),
        ]
        if let cache = statistics.cache {
            totals += [("strata_cache_hits_total", cache.hits), ("strata_cache_misses_total", cache.misses),
                       ("strata_cache_evictions_total", cache.evictions)]
        }
        advanceCounters(to: totals)
        if let duration = statistics.checkpoints.lastDuration {
            let (seconds, attoseconds) = duration.components
            Gauge(label: "strata_checkpoint_last_duration_seconds", dimensions: dimensions, factory: factory)
                .record(Double(seconds) + Double(attoseconds) / 1e18)
        }
        reportHeldVersions(statistics.heldVersions)
        return statistics
    }

    /// Calls ``report()`` every `interval` until the calling task is cancelled.
    public func run(every interval: Duration) async {
        while !Task.isCancelled {
            report()
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    private func reportHeldVersions(_ held: [Realm.Statistics.HeldVersion]) {
        gauge("strata_versions_held", held.count)
        gauge("strata_oldest_held_version_age_commits", held.first?.versionsBehind ?? 0)
        gauge("strata_bytes_kept_for_held_versions", held.reduce(0) { $0 + $1.bytesKeptForItAlone })
        let kinds: [Realm.Statistics.Holder.Kind] = [.realm, .frozen, .threadSafeReference, .notifier, .other]
        for kind in kinds {
            let holds = held.reduce(0) { $0 + $1.holders.count(where: { $0.kind == kind }) }
            Gauge(label: "strata_holds", dimensions: dimensions + [("kind", kind.name)], factory: factory).record(holds)
        }
    }

    private func gauge<Value: BinaryInteger>(_ name: String, _ value: Value) {
        Gauge(label: name, dimensions: dimensions, factory: factory).record(value)
    }

    /// Advances each counter by what its total gained since the previous report.
    private func advanceCounters(to totals: [(name: String, total: UInt64)]) {
        let steps = reported.withLockedValue { reported in
            totals.map { name, total -> (String, UInt64) in
                let previous = reported[name] ?? 0
                reported[name] = total
                // A smaller total: the file was closed and reopened, its counts started again.
                return (name, total >= previous ? total - previous : total)
            }
        }
        for (name, step) in steps {
            Counter(label: name, dimensions: dimensions, factory: factory).increment(by: Int64(clamping: step))
        }
    }
}
