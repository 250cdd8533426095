#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): what a piece of work
/// cost, unaffected by other threads and processes competing for the cores.
///
/// ```swift
/// let start = ThreadCPUTime.now
/// work()
/// let cost = ThreadCPUTime.now - start
/// ```
package enum ThreadCPUTime {
    /// The calling thread's CPU time so far (zero when the clock is unavailable).
    package static var now: Duration {
        var spec = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 else { return .zero }
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }
}
