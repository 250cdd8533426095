/// The lock-protected state machine behind ``LibUVEventLoop/execute(_:)`` and ``LibUVEventLoop/shutdown()``.
///
/// Producers call ``enqueue(_:)`` from any thread; the loop thread calls ``takeBatch()`` from its
/// `uv_async_t` callback and runs the batch *after* unlocking. Each operation mutates the state
/// and returns what the caller must do (wake the loop, drop the work, close the handles), in the
/// style of swift-async-algorithms' state machines.
///
/// Wake-ups are sent only when the queue goes from empty to non-empty: while it is non-empty a
/// wake-up is already on its way, and the drain it causes takes every item queued until then.
struct WorkQueue {
    /// A closure queued with ``LibUVEventLoop/execute(_:)``.
    typealias Work = @Sendable () -> Void

    /// What ``enqueue(_:)`` asks the caller to do.
    enum EnqueueAction: Equatable {
        /// The queue was empty: send one wake-up (`uv_async_send`).
        case wakeLoop
        /// A wake-up is already pending; nothing more to do.
        case none
        /// Shutdown has begun; the work was not queued and will never run.
        case reject
    }

    /// The items one drain runs, in FIFO order.
    struct Batch {
        /// The closures to run, oldest first.
        var items: [Work]
        /// True when shutdown was requested before this batch was taken: no further work will be
        /// accepted, so after running `items` the loop closes its handles.
        var isFinal: Bool
    }

    private var items: [Work] = []
    private var shutdownRequested = false
    private var finalBatchTaken = false

    /// How many times the loop drained the queue (one per `uv_async_t` callback).
    private(set) var drainCount = 0

    /// Whether work is still accepted (shutdown has not been requested).
    var isAccepting: Bool { !shutdownRequested }

    /// The number of closures waiting for the next drain.
    var count: Int { items.count }

    /// Queues `work` unless shutdown was requested.
    mutating func enqueue(_ work: @escaping Work) -> EnqueueAction {
        guard !shutdownRequested else { return .reject }
        items.append(work)
        return items.count == 1 ? .wakeLoop : .none
    }

    /// Stops accepting work.
    ///
    /// - Returns: true the first time, when the caller must wake the loop so that it drains the
    ///   queue one last time and closes its handles; false if shutdown was already requested.
    mutating func requestShutdown() -> Bool {
        guard !shutdownRequested else { return false }
        shutdownRequested = true
        return true
    }

    /// Takes everything queued so far; called once per wake-up on the loop thread.
    mutating func takeBatch() -> Batch {
        drainCount += 1
        let batch = items
        items = []
        let isFinal = shutdownRequested && !finalBatchTaken
        if isFinal { finalBatchTaken = true }
        return Batch(items: batch, isFinal: isFinal)
    }
}
