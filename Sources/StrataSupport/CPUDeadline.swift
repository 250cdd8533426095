#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A CPU-time deadline for the work the calling thread does inside ``run(within:_:)``, which
/// costly steps poll (``hasPassed``) so that a computation over its budget can give up early
/// instead of running to its end.
///
/// A computation that gave up has a meaningless result: the caller must discard it (the
/// notifier worker stops the notifier whose computation passed its deadline).
///
/// ```swift
/// let (result, passed) = CPUDeadline.run(within: .milliseconds(50)) { evaluate() }
/// if passed { discard(result) }
/// ```
package enum CPUDeadline {
    private final class State {
        let deadline: Duration
        var passed = false
        init(deadline: Duration) { self.deadline = deadline }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Runs `body` with a deadline `budget` of CPU time from now on the calling thread.
    ///
    /// - Returns: `body`'s result, and whether a poll found the deadline passed (then the steps
    ///   that polled gave up, and the result must be discarded).
    package static func run<T>(within budget: Duration, _ body: () -> T) -> (result: T, passed: Bool) {
        let state = State(deadline: ThreadCPUTime.now + budget)
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(state).toOpaque())
        defer { pthread_setspecific(key, previous) }
        let result = withExtendedLifetime(state) { body() }
        return (result, state.passed)
    }

    /// Whether the calling thread runs under a deadline that has passed: false at once outside
    /// ``run(within:_:)``; inside, it reads the thread's CPU clock (a system call), so poll it
    /// before costly steps only.
    package static var hasPassed: Bool {
        guard let raw = pthread_getspecific(key) else { return false }
        let state = Unmanaged<State>.fromOpaque(raw).takeUnretainedValue()
        if !state.passed, ThreadCPUTime.now > state.deadline { state.passed = true }
        return state.passed
    }
}
