import Foundation
@testable import StrataEventd
import Testing

@Suite("Window counters")
struct WindowCountersTests {
    private let start = Date(timeIntervalSince1970: 1_000_000)

    @Test("counts expire with the window, and the totals follow")
    func expiry() {
        var counters = WindowCounters(windowSeconds: 10)
        counters.add("a", at: start)
        counters.add("a", at: start + 5)
        counters.add("b", at: start + 9)
        #expect(counters.summary(now: start + 9, top: 10).top.map(\.count) == [2, 1])
        #expect(counters.summary(now: start + 12, top: 10).top.map { "\($0.key)=\($0.count)" } == ["a=1", "b=1"])
        #expect(counters.summary(now: start + 30, top: 10) == WindowCounters.Summary(top: [], other: 0, trackedKeys: 0))
    }

    @Test("past maxKeys distinct keys, a new key takes the place of the smallest, whose events count as other")
    func boundedKeys() {
        var counters = WindowCounters(windowSeconds: 10, maxKeys: 3)
        for key in ["a", "a", "a", "b", "b", "c", "d", "e", "a"] { counters.add(key, at: start) }
        // c (1) gave way to d, then d (1) to e: a and b stay tracked.
        let summary = counters.summary(now: start, top: 2)
        #expect(summary.top.map { "\($0.key)=\($0.count)" } == ["a=4", "b=2"])
        #expect(summary.other == 3 && summary.trackedKeys == 3)
        counters.add("f", at: start + 20)
        #expect(counters.summary(now: start + 20, top: 5) == WindowCounters.Summary(top: [("f", 1)], other: 0, trackedKeys: 1))
    }

    @Test("a flood of one-off keys does not push a heavy key out")
    func flood() {
        var counters = WindowCounters(windowSeconds: 60, maxKeys: 10)
        counters.add("real", at: start)
        for round in 0..<1_000 {
            if round % 10 == 0 { counters.add("real", at: start) }
            counters.add("junk-\(round)", at: start)
        }
        // "real" has 2 events before the first one-off can take a place, and every one-off 1.
        let summary = counters.summary(now: start, top: 1)
        #expect(summary.top.first?.key == "real" && summary.top.first?.count == 101)
        #expect(summary.other == 1_000)   // 991 one-offs that gave way, and the 9 tracked below the top
    }

    @Test("keys are compared by bytes, and long keys are cut at a character boundary")
    func keys() {
        var counters = WindowCounters(windowSeconds: 10, maxKeys: 10, maxKeyBytes: 16)
        counters.add("caf\u{E9}", at: start)
        counters.add("cafe\u{301}", at: start)
        counters.add(String(repeating: "\u{E9}", count: 40), at: start)
        let keys = counters.summary(now: start, top: 10).top.map(\.key)
        #expect(keys.count == 3)
        #expect(keys.contains(String(repeating: "\u{E9}", count: 6) + "…"))
        #expect(keys.allSatisfy { $0.utf8.count <= 16 })
    }

    @Test("a window of a day is kept in at most 60 buckets")
    func longWindow() {
        var counters = WindowCounters(windowSeconds: 86_400, maxKeys: 5)
        for second in stride(from: 0, to: 86_400, by: 97) { counters.add("k", at: start + Double(second)) }
        #expect(counters.bucketSeconds == 1_440)
        #expect(counters.summary(now: start + 86_399, top: 1).top.first?.count == (86_400 + 96) / 97)
    }
}
