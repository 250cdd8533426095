import Foundation
import MetricsTestKit
import Strata
import StrataMetrics
import StrataTestSupport
import Testing

final class MetricsItem: Object {
    @Persisted(primaryKey: true) var id: Int
}

/// `StrataMetricsReporter` publishes a file's statistics under the documented names.
@Suite("StrataMetricsReporter")
struct StrataMetricsReporterTests {
    @Test("a report publishes the statistics under the documented names with the file's path; counters advance by what was gained")
    func report() throws {
        try withTemporaryDirectory { directory in
            let metrics = TestMetrics()
            let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("metrics.realm")),
                                                    objectTypes: [MetricsItem.self])
            let reporter = StrataMetricsReporter(configuration: configuration, factory: metrics)
            #expect(reporter.report()?.version == nil, "no Realm of the file is open: nothing to report")
            #expect(metrics.recorders.isEmpty && metrics.counters.isEmpty)

            let realm = try Realm(configuration: configuration)
            try realm.write { for id in 0..<10 { realm.add(MetricsItem(value: [id])) } }
            let first = try #require(reporter.report())
            let path = [("path", try #require(configuration.fileURL).path)]
            #expect(try metrics.expectGauge("strata_log_bytes", path).lastValue == Double(first.logBytes))
            #expect(first.logBytes > 0)
            #expect(try metrics.expectGauge("strata_file_bytes", path).lastValue == Double(first.fileBytes))
            #expect(try metrics.expectGauge("strata_cache_capacity_bytes", path).lastValue
                        == Double(configuration.cacheSize))
            #expect(try metrics.expectGauge("strata_versions_held", path).lastValue == Double(first.heldVersions.count))
            #expect(try metrics.expectGauge("strata_holds", path + [("kind", "realm")]).lastValue ?? 0 >= 1)
            #expect(try metrics.expectCounter("strata_commits_total", path).totalValue == Int64(first.commits))
            #expect(try metrics.expectCounter("strata_checkpoint_failures_total", path).totalValue == 0)
            #expect(try metrics.expectCounter("strata_cache_hits_total", path).totalValue
                        == Int64(try #require(first.cache).hits))

            try realm.write { realm.add(MetricsItem(value: [100])) }
            let second = try #require(reporter.report())
            #expect(second.commits == first.commits + 1)
            let commits = try metrics.expectCounter("strata_commits_total", path)
            #expect(commits.totalValue == Int64(second.commits))
            #expect(commits.values.last == 1, "the second report adds the one commit since the first")
        }
    }

    @Test("run(every:) reports on a timer until its task is cancelled")
    func runsOnATimer() throws {
        try withTemporaryDirectory { directory in
            let metrics = TestMetrics()
            let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("timer.realm")),
                                                    objectTypes: [MetricsItem.self])
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(MetricsItem(value: [1])) }
            let reporter = StrataMetricsReporter(configuration: configuration, factory: metrics)
            // The timer runs on a loop thread of its own: on the cooperative pool (two threads on
            // two cores) it could wait minutes behind the other suites' blocking tests.
            let loop = try LibUVEventLoop.startThread(name: "metrics-timer")
            defer { loop.shutdownAndWait() }
            let finished = DispatchSemaphore(value: 0)
            let task = Task(executorPreference: loop) {
                await reporter.run(every: .milliseconds(5))
                finished.signal()
            }
            let path = [("path", try #require(configuration.fileURL).path)]
            // Two reports at least: the gauge was recorded twice.
            #expect(waitUntil(timeout: 30) { ((try? metrics.expectGauge("strata_log_bytes", path))?.values.count ?? 0) >= 2 })
            task.cancel()
            #expect(finished.wait(timeout: .now() + 30) == .success)
            #expect(realm.objects(MetricsItem.self).count == 1)
        }
    }
}
