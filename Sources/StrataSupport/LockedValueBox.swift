#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex, with a condition variable for waiting on it.
///
/// This is the one lock primitive Strata uses. It is a pthread mutex rather than
/// `Synchronization.Mutex` because ThreadSanitizer on this Linux toolchain reports the latter as a
/// false race, which would hide real ones (see STYLE.md). The mutex and condition live in the
/// tail-allocated header of a `ManagedBuffer`, so they never move in memory.
///
/// ```swift
/// let counter = LockedValueBox(0)
/// counter.withLockedValue { $0 += 1 }
/// ```
package final class LockedValueBox<Value>: @unchecked Sendable {
    // Safety: every access to `storage.value` happens while `storage.mutex` is held.
    private let storage: LockStorage<Value>

    /// Creates a box holding `value`.
    package init(_ value: Value) {
        storage = LockStorage.create(value)
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    ///
    /// Never call user code (observer blocks, migration blocks) from `body`.
    package func withLockedValue<R, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> R
    ) throws(Failure) -> R {
        try storage.withLockedValue(body)
    }

    /// Blocks until `ready` returns true for the value, then runs `body` with the lock held.
    ///
    /// `ready` is evaluated with the lock held, each time another thread calls ``broadcast()``.
    package func wait<R, Failure: Error>(
        until ready: (Value) -> Bool, then body: (inout Value) throws(Failure) -> R
    ) throws(Failure) -> R {
        try storage.wait(until: ready, then: body)
    }

    /// Blocks until `ready` returns true for the value or `timeout` has passed (on the monotonic
    /// clock), whichever comes first; returns whether `ready` held.
    ///
    /// `ready` is evaluated with the lock held, first at once, then each time another thread
    /// calls ``broadcast()``.
    package func wait(until ready: (Value) -> Bool, timeout: Duration) -> Bool {
        storage.wait(until: ready, timeout: timeout)
    }

    /// Wakes every thread blocked in ``wait(until:then:)`` so it re-checks its condition.
    package func broadcast() {
        storage.broadcast()
    }
}

/// The mutex, condition and value of a ``LockedValueBox``.

final class LockStorage<Value>: ManagedBuffer<LockStorage<Value>.Header, Value> {

    struct Header {
        var mutex = pthread_mutex_t()
        var condition = pthread_cond_t()
    }

    static func create(_ value: Value) -> LockStorage<Value> {
        let buffer = Self.create(minimumCapacity: 1) { _ in Header() }
        // Safety: `create` returns an instance of the dynamic Self type.
        let storage = unsafeDowncast(buffer, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointers { header, element in
            precondition(pthread_mutex_init(&header.pointee.mutex, nil) == 0, "pthread_mutex_init failed")
            // Timed waits count on the monotonic clock: a change of the wall clock neither cuts
            // them short nor stretches them.
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            precondition(pthread_cond_init(&header.pointee.condition, &attributes) == 0, "pthread_cond_init failed")
            pthread_condattr_destroy(&attributes)
            element.initialize(to: value)
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointers { header, element in
            _ = element.deinitialize(count: 1)
            pthread_cond_destroy(&header.pointee.condition)
            pthread_mutex_destroy(&header.pointee.mutex)
        }
    }


    func withLockedValue<R, Failure: Error>(_ body: (inout Value) throws(Failure) -> R) throws(Failure) -> R {
        let (header, element) = withUnsafeMutablePointers { ($0, $1) }
        pthread_mutex_lock(&header.pointee.mutex)
        defer { pthread_mutex_unlock(&header.pointee.mutex) }
        return try body(&element.pointee)
    }

    func wait<R, Failure: Error>(
        until ready: (Value) -> Bool, then body: (inout Value) throws(Failure) -> R
    ) throws(Failure) -> R {
        let (header, element) = withUnsafeMutablePointers { ($0, $1) }
        pthread_mutex_lock(&header.pointee.mutex)
        defer { pthread_mutex_unlock(&header.pointee.mutex) }
        while !ready(element.pointee) {
            pthread_cond_wait(&header.pointee.condition, &header.pointee.mutex)
        }
        return try body(&element.pointee)
    }

    func wait(until ready: (Value) -> Bool, timeout: Duration) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        // A negative timeout is no wait (its components would make an invalid deadline).
        let (seconds, attoseconds) = max(timeout, .zero).components
        let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        let (header, element) = withUnsafeMutablePointers { ($0, $1) }
        pthread_mutex_lock(&header.pointee.mutex)
        defer { pthread_mutex_unlock(&header.pointee.mutex) }
        while !ready(element.pointee) {
            // ETIMEDOUT, or any other failure (which would fail again at once): the wait is over.
            if pthread_cond_timedwait(&header.pointee.condition, &header.pointee.mutex, &deadline) != 0 {
                return ready(element.pointee)
            }
        }
        return true
    }

    func broadcast() {
        withUnsafeMutablePointers { header, _ in
            pthread_mutex_lock(&header.pointee.mutex)
            pthread_cond_broadcast(&header.pointee.condition)
            pthread_mutex_unlock(&header.pointee.mutex)
        }
    }
}
