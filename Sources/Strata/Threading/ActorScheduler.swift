import StrataEventLoop

/// The scheduler of an actor-confined Realm (`Realm(configuration:actor:)`): closures are
/// queued on a stream that one task, isolated to the actor, drains in order.
///
/// Any actor works, whatever its executor: the draining task runs as an ordinary job of the
/// actor, interleaved with the actor's other work at its suspension points, so a notification
/// is delivered the next time the actor is free. The task ends when the scheduler is released
/// (its Realm state is gone).
final class ActorScheduler: StrataScheduler {
    private let continuation: AsyncStream<@Sendable () -> Void>.Continuation
    /// Distinguishes this scheduler in the thread-local marker.
    private let identity = Identity()

    /// Marks the thread currently running a closure of some `ActorScheduler`.
    private static let runningMarker = ThreadLocalMarker()

    /// Starts the task that runs scheduled closures on `actor`.
    init(actor: any Actor) {
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () -> Void).self,
                                                            bufferingPolicy: .unbounded)
        self.continuation = continuation
        let identity = identity
        Task { await Self.drain(stream, identity: identity, on: actor) }
    }

    deinit {
        continuation.finish()
    }

    /// Queues `work` to run on the actor, after everything queued before it.
    func schedule(_ work: @escaping @Sendable () -> Void) {
        continuation.yield(work)
    }

    /// Whether the caller is a closure this scheduler is running.
    var isOnSchedulerThread: Bool {
        Self.runningMarker.isCurrent(identity)
    }

    /// Runs the queued closures one by one, isolated to `actor`, until the stream finishes.
    private static func drain(_ stream: AsyncStream<@Sendable () -> Void>, identity: Identity,
                              on actor: isolated any Actor) async {
        for await work in stream {
            runningMarker.withValue(identity) { work() }
        }
    }

    private final class Identity: Sendable {}
}
