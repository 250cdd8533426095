import NIOCore
import Strata

/// A `StrataScheduler` that runs a Realm's deliveries on a swift-nio `EventLoop`.
///
/// ``schedule(_:)`` hands the work to `EventLoop.execute(_:)`, so it runs on the loop's thread
/// after everything submitted to the loop before it, never inside the call; and
/// ``isOnSchedulerThread`` is `EventLoop.inEventLoop`. A Realm opened with
/// `Realm(configuration:eventLoop:)` (or `Realm(configuration:scheduler:)` with this scheduler) is
/// confined to the loop: change notifications, `writeAsync` blocks and their completions, and
/// the values of its async sequences arrive there, in commit order.
///
/// ```swift
/// let loop = MultiThreadedEventLoopGroup.singleton.next()
/// let scheduler = EventLoopScheduler(eventLoop: loop)
/// scheduler.schedule { assert(loop.inEventLoop) }
/// ```
///
/// A loop that has shut down drops the work (swift-nio prints an error, or traps in its strict
/// mode): invalidate a Realm's notification tokens and release the Realm before shutting its
/// loop down.
public struct EventLoopScheduler: StrataScheduler {
    /// The loop that runs the work.
    public let eventLoop: any EventLoop

    /// Creates a scheduler that runs work on `eventLoop`.
    ///
    /// - Parameter eventLoop: The loop a Realm is to be confined to.
    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Runs `work` on the loop with `EventLoop.execute(_:)`, after the work submitted before it.
    ///
    /// - Parameter work: The closure to run on the loop.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        eventLoop.execute(work)
    }

    /// Whether the caller runs on the loop's thread (`EventLoop.inEventLoop`).
    public var isOnSchedulerThread: Bool { eventLoop.inEventLoop }
}
