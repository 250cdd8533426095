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

    @Test("past maxKeys distinct keys, further keys count as other until tracked ones expire")
    func boundedKeys() {
        var counters = WindowCounters(windowSeconds: 10, maxKeys: 3)
        for key in ["a", "b", "c", "d", "e", "a"] { counters.add(key, at: start) }
        let summary = counters.summary(now: start, top: 2)
        #expect(summary.top.map(\.key) == ["a", "b"] && summary.other == 3 && summary.trackedKeys == 3)
        counters.add("f", at: start + 20)
        #expect(counters.summary(now: start + 20, top: 5).top.map(\.key) == ["f"])
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
