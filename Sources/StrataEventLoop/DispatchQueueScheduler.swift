import Dispatch
import StrataSupport

/// A ``StrataScheduler`` that runs closures on a serial `DispatchQueue`.
///
/// Closures run with `queue.async`, in FIFO order. ``isOnSchedulerThread`` is true inside work
/// running on `queue` (or on a queue that targets it): the scheduler tags the queue with
/// `DispatchQueue.setSpecific(key:value:)` and reads the tag back with `getSpecific(key:)`.
/// Schedulers created for the same queue share its tag, so they agree on what "on the queue"
/// means.
///
/// ```swift
/// let scheduler = DispatchQueueScheduler(queue: DispatchQueue(label: "realm.writer"))
/// scheduler.schedule {
///     assert(scheduler.isOnSchedulerThread)
/// }
/// ```
///
/// The queue must be serial: a Realm confined to a concurrent queue would be used from several
/// threads at once.
public struct DispatchQueueScheduler: StrataScheduler {
    /// The serial queue closures run on.
    public let queue: DispatchQueue

    /// The tag this scheduler expects to find on `queue`; held here so its address is never reused
    /// while the scheduler exists.
    private let tag: QueueTag

    /// Creates a scheduler for `queue`, tagging the queue if it is not tagged yet.
    ///
    /// - Parameter queue: A serial queue.
    public init(queue: DispatchQueue) {
        self.queue = queue
        self.tag = QueueTag.registrationLock.withLockedValue { _ in
            if let existing = queue.getSpecific(key: QueueTag.key) {
                return existing
            }
            let tag = QueueTag()
            queue.setSpecific(key: QueueTag.key, value: tag)
            return tag
        }
    }

    /// Runs `work` on the queue with `queue.async`.
    ///
    /// - Parameter work: The closure to run on the queue.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Whether the caller runs on ``queue`` (directly or through a queue that targets it).
    public var isOnSchedulerThread: Bool {
        DispatchQueue.getSpecific(key: QueueTag.key) === tag
    }
}

/// The identity a ``DispatchQueueScheduler`` stores on its queue.
private final class QueueTag: Sendable {
    /// The one key under which queues are tagged; it lives for the whole process.
    static let key = DispatchSpecificKey<QueueTag>()
    /// Serialises "read the tag, set it if missing" across concurrently created schedulers.
    static let registrationLock = LockedValueBox(())
}
