import Foundation

/// A thread that repeats an iteration until `stop()` (W8's concurrent reader).
final class BackgroundLoop: @unchecked Sendable {
    // Safety: `state` is Locked; the semaphores are thread-safe.
    private let state = Locked((stop: false, iterations: 0, start: UInt64(0), error: (any Error)?.none))
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread: `setUp` runs on it first (untimed, e.g. opening its Realm) and returns
    /// the iteration; returns once the loop runs.
    init(setUp: @escaping @Sendable () throws -> () throws -> Void) {
        Thread.detachNewThread { [self] in
            do {
                let iteration = try setUp()
                state.withLock { $0.start = now() }
                started.signal()
                while !state.withLock({ $0.stop }) {
                    try iteration()
                    state.withLock { $0.iterations += 1 }
                }
            } catch {
                state.withLock { $0.error = error }
                started.signal()
            }
            finished.signal()
        }
        started.wait()
    }

    /// Stops the loop; returns its iterations per second (loop start to stop request).
    func stop() throws -> Double {
        state.withLock { $0.stop = true }
        let stoppedAt = now()
        finished.wait()
        let result = state.current
        if let error = result.error { throw error }
        return Double(result.iterations) / (Double(stoppedAt - result.start) / 1e9)
    }
}
