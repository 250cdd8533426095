import Foundation

/// The timed part of a write workload: `threads` threads each run `perThread` transactions.
/// Every thread first runs `setUp(thread)` (untimed; e.g. opening its Realm), which returns the
/// transaction body `(j) throws -> Void`; the clock starts once every thread is ready.
enum Writers {
    struct Run {
        /// Wall time from the start signal until the last thread finished.
        let seconds: Double
        /// Per-transaction latency (call to return), µs, all threads.
        let latencies: [Double]
        let transactions: Int

        var transactionsPerSecond: Double { Double(transactions) / seconds }
    }

    static func run(threads: Int, perThread: Int,
                    setUp: @escaping @Sendable (_ thread: Int) throws -> (_ j: Int) throws -> Void) throws -> Run {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let latencies = Locked<[Double]>([])
        let start = Locked<UInt64>(0)
        let firstError = Locked<(any Error)?>(nil)
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                var mine: [Double] = []
                mine.reserveCapacity(perThread)
                do {
                    let body = try setUp(thread)
                    ready.signal()
                    go.wait()
                    for j in 0..<perThread {
                        let begin = now()
                        try body(j)
                        mine.append(micros(begin, now()))
                    }
                } catch {
                    firstError.withLock { $0 = $0 ?? error }
                    ready.signal()
                }
                latencies.withLock { $0 += mine }
            }
        }
        for _ in 0..<threads { ready.wait() }
        start.withLock { $0 = now() }
        for _ in 0..<threads { go.signal() }
        done.wait()
        let elapsed = seconds(since: start.current)
        if let error = firstError.current { throw error }
        return Run(seconds: elapsed, latencies: latencies.current, transactions: threads * perThread)
    }
}
