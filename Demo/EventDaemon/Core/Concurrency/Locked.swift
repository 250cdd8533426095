import Foundation

/// A value guarded by a lock, with a condition to wait on: the daemon's one lock primitive.
///
/// Built on Foundation's `NSCondition` (a pthread mutex and condition variable), as the daemon
/// uses only Strata's public API for locking: `Synchronization.Mutex` would do, but on this Linux
/// toolchain ThreadSanitizer reports it as a false race, and the daemon's concurrency tests run
/// under ThreadSanitizer.
///
/// ```swift
/// let queue = Locked([Int]())
/// queue.withLockedValue { $0.append(1) }
/// queue.broadcast()
/// let first = queue.wait(until: { !$0.isEmpty }) { $0.removeFirst() }
/// ```
final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var value: Value

    /// A lock guarding `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    func withLockedValue<R, Failure: Error>(_ body: (inout Value) throws(Failure) -> R) throws(Failure) -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// Blocks until `ready` returns true for the value, then runs `body` with the lock held.
    ///
    /// `ready` is evaluated with the lock held, first at once, then each time another thread
    /// calls ``broadcast()``.
    func wait<R>(until ready: (Value) -> Bool, then body: (inout Value) -> R) -> R {
        condition.lock()
        defer { condition.unlock() }
        while !ready(value) { condition.wait() }
        return body(&value)
    }

    /// Wakes every thread blocked in ``wait(until:then:)`` so it re-checks its condition.
    func broadcast() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}
