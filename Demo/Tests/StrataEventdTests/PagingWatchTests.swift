@testable import StrataEventd
import Testing

@Suite("Paging rules of an initial result")
struct PagingWatchTests {
    private let start = ContinuousClock.now
    private var limits: DaemonLimits {
        var limits = DaemonLimits()
        limits.pageTimeoutSeconds = 10
        limits.maxPinnedBytes = 1_000
        return limits
    }

    private func reading(at seconds: Int, written: Int, queued: Int = 100,
                         committed: UInt64 = 5_000) -> PagingWatch.Reading {
        PagingWatch.Reading(now: start + .seconds(seconds), deliveredBytes: written, queuedBytes: queued,
                            committedBytes: committed)
    }

    @Test("a client that takes a few bytes now and then is never stalled, however long a page takes")
    func slowProgressIsNotStalled() {
        var watch = PagingWatch(limits: limits, at: reading(at: 0, written: 0))
        for second in stride(from: 9, through: 90, by: 9) {
            #expect(watch.check(reading(at: second, written: second)) == nil, "at \(second) s")
        }
    }

    @Test("a client that takes no byte of a waiting page for the timeout is stalled")
    func noProgressStalls() {
        var watch = PagingWatch(limits: limits, at: reading(at: 0, written: 0))
        #expect(watch.check(reading(at: 4, written: 50)) == nil)
        #expect(watch.check(reading(at: 13, written: 50)) == nil)
        #expect(watch.check(reading(at: 14, written: 50)) == .stalled(seconds: 10))
    }

    @Test("while nothing is queued (the next page is being built) the client is not waited for")
    func nothingQueuedIsNotStalled() {
        var watch = PagingWatch(limits: limits, at: reading(at: 0, written: 0))
        #expect(watch.check(reading(at: 9, written: 0, queued: 0)) == nil)
        #expect(watch.check(reading(at: 18, written: 0)) == nil)
        #expect(watch.check(reading(at: 19, written: 0)) == .stalled(seconds: 10))
    }

    @Test("more than maxPinnedBytes committed after the paged version ends the paging, even for a reading client")
    func pinBoundTrips() {
        var watch = PagingWatch(limits: limits, at: reading(at: 0, written: 0, committed: 5_000))
        #expect(watch.check(reading(at: 1, written: 10, committed: 6_000)) == nil)
        #expect(watch.check(reading(at: 2, written: 20, committed: 6_001))
                == .pinnedTooMuch(bytes: 1_001, limit: 1_000))
    }

    @Test("checks come four times per timeout, at most a second apart")
    func checkInterval() {
        var limits = limits
        #expect(PagingWatch.checkInterval(for: limits) == .seconds(1))
        limits.pageTimeoutSeconds = 2
        #expect(PagingWatch.checkInterval(for: limits) == .milliseconds(500))
    }
}
