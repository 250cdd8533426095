/// A ``StrataScheduler`` for Swift concurrency: closures are queued on an `AsyncStream` and run, in
/// order, by the task that calls ``run()``.
///
/// ```swift
/// let scheduler = AsyncScheduler()
/// let consumer = Task { await scheduler.run() }   // the task that owns the Realm
///
/// scheduler.schedule {                             // from any thread
///     assert(scheduler.isOnSchedulerThread)
/// }
///
/// scheduler.finish()                               // ends the stream; `run()` returns
/// await consumer.value
/// ```
///
/// Call ``run()`` from exactly one task (an `AsyncStream` has a single consumer). Closures run
/// one at a time, synchronously, inside that task, so state touched only by scheduled closures
/// needs no lock. After ``finish()`` the stream is finished and ``schedule(_:)`` drops work.
/// The stream buffers without bound.
public struct AsyncScheduler: StrataScheduler {
    private let stream: AsyncStream<@Sendable () -> Void>
    private let continuation: AsyncStream<@Sendable () -> Void>.Continuation
    /// Distinguishes this scheduler in the thread-local marker; shared by copies.
    private let identity = Identity()

    /// Marks the thread currently running a closure of some `AsyncScheduler`.
    private static let runningMarker = ThreadLocalMarker()

    /// Creates a scheduler with an empty stream; start a task that calls ``run()``.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () -> Void).self, bufferingPolicy: .unbounded)
    }

    /// Queues `work` for the task running ``run()``; drops it after ``finish()``.
    ///
    /// - Parameter work: The closure to run inside the consuming task.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        continuation.yield(work)
    }

    /// Whether the caller is a closure this scheduler is running (inside ``run()``).
    ///
    /// Tracked per thread while each closure runs, so a `Task` started from a closure, or other
    /// code of the consuming task between closures, does not count.
    public var isOnSchedulerThread: Bool {
        Self.runningMarker.isCurrent(identity)
    }

    /// Runs every scheduled closure, in order, until ``finish()`` is called and the stream is
    /// drained, or the task is cancelled.
    ///
    /// Call it from exactly one task.
    public func run() async {
        for await work in stream {
            Self.runningMarker.withValue(identity) {
                work()
            }
        }
    }

    /// Ends the stream: closures already scheduled still run, then ``run()`` returns; later
    /// ``schedule(_:)`` calls drop their work.
    public func finish() {
        continuation.finish()
    }

    private final class Identity: Sendable {}
}
