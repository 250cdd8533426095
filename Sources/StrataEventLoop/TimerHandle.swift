import CLibUV

/// A timer on an ``LibUVEventLoop``; cancel it with ``cancel()``.
///
/// Returned by ``LibUVEventLoop/scheduleTimer(after:repeating:_:)`` and
/// ``LibUVEventLoop/schedule(after:repeating:_:)``. The loop keeps a started timer alive until it is
/// closed, so dropping the handle does not cancel the timer. A one-shot timer closes itself after
/// it fired; a repeating timer runs until it is cancelled or the loop shuts down.
public final class TimerHandle: @unchecked Sendable {
    // Safety: `state`, `body` and the `uv_timer_t` are touched only on the loop thread: every
    // internal method checks `loop.preconditionInEventLoop()`, and `cancel()` hops to the loop
    // when called elsewhere. `init` writes them before the handle is shared; a handle created on
    // another thread reaches the loop through `execute`, whose lock orders the two.

    /// The loop the timer runs on.
    let loop: LibUVEventLoop
    /// The libuv timer; valid until `deinit`, which runs only after the close callback.
    private let uvTimer: UnsafeMutablePointer<uv_timer_t>
    /// Delay before the first firing, in libuv milliseconds.
    private let delay: UInt64
    /// Period between firings in libuv milliseconds, or `nil` for a one-shot timer.
    private let interval: UInt64?
    /// The user's closure; released when the timer closes.
    private var body: (() -> Void)?
    private var state = State.pending

    /// A timer's lifecycle (loop-confined).
    enum State: Equatable {
        /// Created, not yet started on the loop (or never will be, if the loop shut down first).
        case pending
        /// Started; libuv will call it.
        case active
        /// `uv_close` was called; the close callback has not run yet.
        case closing
        /// Closed, or cancelled before it started; `body` is released.
        case closed
    }

    init(loop: LibUVEventLoop, delay: Duration, interval: Duration?, body: @escaping () -> Void) {
        self.loop = loop
        self.uvTimer = .allocate(capacity: 1)
        self.delay = LibUVEventLoop.milliseconds(delay)
        // libuv reads a repeat of 0 as "do not repeat", so a repeating timer repeats at least
        // every millisecond.
        self.interval = interval.map { max(1, LibUVEventLoop.milliseconds($0)) }
        self.body = body
    }

    deinit {
        // Either never started (no libuv state) or its close callback already ran.
        uvTimer.deallocate()
    }

    /// Stops the timer: its closure will not be called again, and is released.
    ///
    /// Callable from any thread, any number of times, also from inside the timer's own closure.
    /// On the loop thread it takes effect immediately; from another thread it hops to the loop
    /// with ``LibUVEventLoop/execute(_:)`` (after shutdown there is nothing left to cancel).
    public func cancel() {
        if loop.inEventLoop {
            close()
        } else {
            loop.execute { self.close() }
        }
    }

    /// Whether the timer is closed (its close callback ran, or it was cancelled before it
    /// started). Loop thread only.
    var isClosed: Bool {
        loop.preconditionInEventLoop()
        return state == .closed
    }

    // MARK: - Loop thread

    /// Starts the timer unless it was cancelled already or the loop is shutting down.
    func start() {
        loop.preconditionInEventLoop()
        guard state == .pending else { return }
        let accepted = loop.withConfinedState { confined in
            guard !confined.isClosingHandles else { return false }
            confined.timers[ObjectIdentifier(self)] = self
            return true
        }
        guard accepted else {
            markClosed()
            return
        }
        let initResult = uv_timer_init(loop.uvLoop, uvTimer)
        precondition(initResult == 0, "uv_timer_init failed: \(initResult)")
        uvTimer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        // Measure the delay from now, not from the start of this loop iteration.
        uv_update_time(loop.uvLoop)
        let startResult = uv_timer_start(uvTimer, timerFired, delay, interval ?? 0)
        precondition(startResult == 0, "uv_timer_start failed: \(startResult)")
        state = .active
    }

    /// Closes the timer; idempotent.
    func close() {
        loop.preconditionInEventLoop()
        switch state {
        case .pending:
            markClosed()
        case .active:
            state = .closing
            uv_close(uvHandle(uvTimer), timerClosed)
        case .closing, .closed:
            break
        }
    }

    /// The libuv timer callback.
    fileprivate func fire() {
        loop.preconditionInEventLoop()
        guard state == .active, let body else { return }
        if interval == nil {
            // A one-shot timer is done: close it first, so that `cancel()` from `body` is a no-op.
            close()
        }
        body()
    }

    /// The libuv close callback: the `uv_timer_t` is no longer used by libuv.
    fileprivate func didClose() {
        markClosed()
        // May release the last reference to `self`; libuv touches the handle no more.
        _ = loop.withConfinedState { $0.timers.removeValue(forKey: ObjectIdentifier(self)) }
    }

    private func markClosed() {
        state = .closed
        body = nil
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> TimerHandle {
        guard let data else { preconditionFailure("a uv_timer_t without its TimerHandle") }
        return Unmanaged<TimerHandle>.fromOpaque(data).takeUnretainedValue()
    }
}

/// libuv's timer callback for every ``TimerHandle``.
private func timerFired(_ handle: UnsafeMutablePointer<uv_timer_t>?) {
    guard let handle else { return }
    TimerHandle.from(handle.pointee.data).fire()
}

/// libuv's close callback for every ``TimerHandle``.
private func timerClosed(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle else { return }
    TimerHandle.from(handle.pointee.data).didClose()
}
