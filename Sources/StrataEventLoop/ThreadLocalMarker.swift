#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A per-thread, pointer-sized marker that answers "is this thread running *that* loop or scheduler?".
///
/// An ``LibUVEventLoop`` sets the marker to itself for as long as ``LibUVEventLoop/run()`` runs on a thread,
/// and ``AsyncScheduler`` sets it to its identity while one of its closures runs, so that
/// `inEventLoop` / `isOnSchedulerThread` cost one `pthread_getspecific` and no lock.
package struct ThreadLocalMarker: Sendable {
    private let key: pthread_key_t

    /// Creates a marker backed by a fresh pthread key; create one per use, once (a `static let`).
    package init() {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "pthread_key_create failed with \(result)")
        self.key = key
    }

    /// The value this thread set, or `nil`.
    package var current: UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Whether this thread's marker is `value`.
    package func isCurrent(_ value: AnyObject) -> Bool {
        current == Unmanaged.passUnretained(value).toOpaque()
    }

    /// Runs `body` with this thread's marker set to `value`, restoring the previous value after.
    package func withValue<R>(_ value: AnyObject, _ body: () throws -> R) rethrows -> R {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(value).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
