/// Runs closures on the thread, loop or task that owns a Realm.
///
/// A `StrataScheduler` is the seam between Strata's notification machinery and the thread a Realm is
/// confined to: after a commit, a background worker computes change sets and then calls
/// ``schedule(_:)`` on each notifier's scheduler, which runs the delivery where the Realm lives.
/// A Realm checks ``isOnSchedulerThread`` to enforce its confinement.
///
/// Strata provides three:
/// - ``LibUVEventLoop`` — a libuv loop on a thread of its own (the default on Linux);
/// - ``DispatchQueueScheduler`` — a serial `DispatchQueue`;
/// - ``AsyncScheduler`` — a Swift concurrency task that drains an `AsyncStream`.
///
/// ```swift
/// func deliver(_ changes: Changes, on scheduler: some StrataScheduler) {
///     scheduler.schedule {
///         precondition(scheduler.isOnSchedulerThread)
///         notify(changes)
///     }
/// }
/// ```
public protocol StrataScheduler: Sendable {
    /// Runs `work` later on this scheduler's thread, after everything scheduled before it.
    ///
    /// Callable from any thread; never runs `work` synchronously inside the call. Once the
    /// scheduler has been shut down, `work` is dropped.
    ///
    /// - Parameter work: The closure to run.
    func schedule(_ work: @escaping @Sendable () -> Void)

    /// Whether the caller is running on this scheduler, so that state confined to it may be
    /// used.
    var isOnSchedulerThread: Bool { get }
}
