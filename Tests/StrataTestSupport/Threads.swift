#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import StrataSupport

/// Polls `condition` every millisecond until it holds or `timeout` seconds pass.
///
/// - Returns: whether the condition held.
@discardableResult
public func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return condition() }
        usleep(1_000)
    }
    return true
}

/// Collects failures seen on background threads, where `#expect` cannot attribute them to the
/// running test; the test asserts that the log is empty afterwards.
public final class FailureLog: Sendable {
    private let entries = LockedValueBox<[String]>([])

    public init() {}

    /// Keeps `message` (the first 50 only).
    public func record(_ message: String) {
        entries.withLockedValue { if $0.count < 50 { $0.append(message) } }
    }

    /// Every message recorded.
    public var all: [String] { entries.withLockedValue { $0 } }
}

/// A flag set by one thread and read by others.
public final class StopFlag: Sendable {
    private let value = LockedValueBox(false)

    public init() {}

    /// Sets the flag.
    public func stop() { value.withLockedValue { $0 = true } }

    /// Whether the flag is set.
    public var isStopped: Bool { value.withLockedValue { $0 } }
}

/// Runs `body(index)` on `count` new threads at once and waits for all of them (at most
/// `timeout` seconds).
///
/// The deadline is there to catch a hang, not to time the work: under ThreadSanitizer, with the
/// fsync-heavy suites sharing the disk, CI has seen threads that take seconds alone take over 60
/// (the page cache test, then the lazy pages test at 146 s), so the default is 300 seconds,
/// inside the 15 minutes after which the watchdog stops a hung run with every backtrace.
///
/// - Returns: whether every thread finished in time.
@discardableResult
public func runOnThreads(_ count: Int, timeout: Double = 300, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    startThreads(count, body).wait(timeout: .now() + timeout) == .success
}

/// Starts `body(index)` on `count` new threads and returns at once, with a group the threads
/// leave as they finish (wait on it with a timeout).
public func startThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    return group
}

/// Runs `body` on a new thread and waits for it: for work a test needs done off its own thread
/// (a Realm of another thread, say).
///
/// - Returns: what `body` threw, described, or that it did not finish in 300 seconds (empty when
///   it returned).
public func onAnotherThread(_ body: @escaping @Sendable () throws -> Void) -> [String] {
    let failures = FailureLog()
    let finished = runOnThreads(1) { _ in
        do { try body() } catch { failures.record("\(error)") }
    }
    if !finished { failures.record("the thread did not finish within 300 seconds") }
    return failures.all
}

/// Seconds since an arbitrary origin, for throughput figures.
public func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// Carries a non-Sendable value to another thread (a loop thread, a worker) in a test that waits
/// for that thread's closure, so the value is never used on two threads at once.
public final class UncheckedBox<T>: @unchecked Sendable {
    // Safety: the tests that use it hand the value over and wait (a semaphore, the harness's
    // `run`), so no two threads touch it at once.
    /// The value carried.
    public var value: T
    /// A box holding `value`.
    public init(_ value: T) { self.value = value }
}
