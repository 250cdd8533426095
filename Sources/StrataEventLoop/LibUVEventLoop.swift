import CLibUV
import StrataSupport

/// A libuv event loop (`uv_loop_t`) that runs closures and timers on one thread.
///
/// The loop is the default ``StrataScheduler`` on Linux: the thread that runs it owns the Realms
/// confined to it, and notifications for those Realms are delivered on it.
///
/// - ``execute(_:)`` may be called from any thread. The closure is appended to a locked FIFO queue
///   and the loop is woken through one `uv_async_t`; `uv_async_send` coalesces wake-ups, so a
///   burst of closures costs one wake-up and one drain. Closures run in the order they were
///   queued (FIFO per producer), never re-entrantly: a closure queued from the loop thread runs on
///   the next drain.
/// - Timers (``scheduleTimer(after:repeating:_:)``) are created on the loop thread;
///   ``schedule(after:repeating:_:)`` does the hop for you from any thread.
/// - ``shutdown()`` may be called from any thread. The loop stops accepting work, runs what is
///   already queued, closes every handle, and ``run()`` returns once `uv_loop_close` succeeded.
///   **After shutdown, ``execute(_:)`` drops the work and returns `false`.**
///
/// ```swift
/// let loop = try LibUVEventLoop.startThread(name: "strata-loop")   // returns once the loop runs
///
/// // From any thread: hop onto the loop.
/// loop.execute {
///     loop.preconditionInEventLoop()
///     // On the loop thread: timers are loop-confined.
///     let ticker = loop.scheduleTimer(after: .milliseconds(10), repeating: .milliseconds(10)) {
///         print("tick")
///     }
///     loop.scheduleTimer(after: .milliseconds(55)) { ticker.cancel() }
/// }
///
/// // From any thread, without hopping first:
/// loop.schedule(after: .seconds(1)) { print("a second later, on the loop") }
///
/// // Later, from any thread but the loop's own: run what is queued, close every handle,
/// // and join the loop thread.
/// loop.shutdownAndWait()
/// ```
///
/// To run a loop on a thread you already own, create it with ``init()`` and call ``run()``,
/// which returns after another thread (or a closure on the loop) calls ``shutdown()``.
public final class LibUVEventLoop: @unchecked Sendable {
    // Safety: `shared` is a lock; every access goes through it. `confined` is touched only on the
    // loop thread, and `withConfinedState` checks that with a precondition. `uvLoop` and
    // `wakeHandle` are initialised before `self` is shared and handed to libuv only on the loop
    // thread — except `uv_async_send(wakeHandle)`, which libuv documents as thread-safe and which
    // we call with the lock held while the handle is known to be open (see `wakeLoop()`). Their
    // memory is freed in `deinit`, after `uv_loop_close`.

    /// The libuv loop; valid for the lifetime of `self`. Use only on the loop thread.
    let uvLoop: UnsafeMutablePointer<uv_loop_t>

    /// The one `uv_async_t` that wakes the loop to drain the work queue.
    /// Closed by `closeAllHandles()`; its memory is freed in `deinit`.
    let wakeHandle: UnsafeMutablePointer<uv_async_t>

    /// State shared between threads: the work queue, the lifecycle phase, the loop thread.
    let shared: LockedValueBox<SharedState>

    /// State owned by the loop thread; access it through `withConfinedState(_:)`.
    private var confined = ConfinedState()

    /// Marks the thread currently inside ``run()`` of some loop.
    private static let runningLoopMarker = ThreadLocalMarker()

    /// The lifecycle of a loop, guarded by the lock.
    enum Phase: Equatable {
        /// Created; ``run()`` has not been called.
        case idle
        /// ``run()`` is executing on some thread.
        case running
        /// ``run()`` returned; every handle is closed and the loop too.
        case closed
    }

    /// The part of a loop's state that any thread may touch, under the lock.
    struct SharedState {
        var queue = WorkQueue()
        var phase = Phase.idle
        /// What `uv_loop_close` returned at the end of ``run()``.
        var closeResult: Int32?
        /// The thread ``startThread(name:)`` created, until ``shutdownAndWait()`` joins it.
        var thread: LoopThread?
    }

    /// The part of a loop's state that only the loop thread touches.
    struct ConfinedState {
        /// Every started timer whose close callback has not run yet; keeps it (and its
        /// `uv_timer_t`) alive while libuv uses it.
        var timers: [ObjectIdentifier: TimerHandle] = [:]
        /// Every open stream handle (listeners, connections) until its close callback ran.
        var streams: [ObjectIdentifier: StreamHandle] = [:]
        /// Set when shutdown closes the handles; new timers are refused from then on.
        var isClosingHandles = false
    }

    /// Creates a loop, ready to ``run()``.
    ///
    /// - Throws: ``LibUVEventLoopError`` if `uv_loop_init` or `uv_async_init` fails, for example
    ///   `EMFILE` when the process is out of file descriptors.
    public init() throws(LibUVEventLoopError) {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        let wake = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
        do {
            try LibUVEventLoopError.check(uv_loop_init(loop), "uv_loop_init")
        } catch {
            loop.deallocate()
            wake.deallocate()
            throw error
        }
        let asyncResult = uv_async_init(loop, wake) { handle in
            guard let handle else { return }
            LibUVEventLoop.from(handle.pointee.data).drainQueue()
        }
        if asyncResult < 0 {
            _ = uv_loop_close(loop)
            loop.deallocate()
            wake.deallocate()
            throw LibUVEventLoopError(code: asyncResult, operation: "uv_async_init")
        }
        uvLoop = loop
        wakeHandle = wake
        shared = LockedValueBox(SharedState())
        wake.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        // `run()` and `startThread` keep `self` alive while the loop runs, so the phase is
        // `.idle` (never run) or `.closed` here.
        let (phase, thread) = shared.withLockedValue { ($0.phase, $0.thread) }
        precondition(phase != .running, "a LibUVEventLoop was deinitialised while running")
        // A `startThread` loop stopped with `shutdown()` alone: nobody will join its thread
        // (which may be the one running this deinit), so let it clean up after itself.
        thread?.detach()
        if phase == .idle {
            // Never run: close the wake-up handle, let libuv finish closing it, close the loop.
            // Queued work is dropped with the queue.
            uv_close(uvHandle(wakeHandle), nil)
            uv_run(uvLoop, UV_RUN_NOWAIT)
            let result = uv_loop_close(uvLoop)
            assert(result == 0, "uv_loop_close failed in LibUVEventLoop.deinit: \(result)")
        }
        wakeHandle.deallocate()
        uvLoop.deallocate()
    }

    /// The loop that `data` (a `uv_handle_t.data` set by this type) points to.
    static func from(_ data: UnsafeMutableRawPointer?) -> LibUVEventLoop {
        guard let data else { preconditionFailure("a libuv handle without its LibUVEventLoop") }
        return Unmanaged<LibUVEventLoop>.fromOpaque(data).takeUnretainedValue()
    }

    // MARK: - Running

    /// Runs the loop on the calling thread until ``shutdown()`` has closed every handle.
    ///
    /// A loop runs once: calling `run()` a second time, or while it runs on another thread, is a
    /// programmer error and traps. When `run()` returns, the loop is closed; ``execute(_:)``
    /// drops work from then on.
    ///
    /// While it runs, SIGPIPE is blocked on the calling thread, so that writing to a peer that
    /// has gone fails with `EPIPE` (and closes that connection) instead of ending the process;
    /// the thread's signal mask is restored when `run()` returns.
    public func run() {
        shared.withLockedValue { state in
            precondition(state.phase == .idle, "LibUVEventLoop.run() was called twice; a loop runs once")
            state.phase = .running
        }
        let sigpipe = SIGPIPEBlock.begin()
        defer { sigpipe.end() }
        shared.broadcast()
        let closeResult = Self.runningLoopMarker.withValue(self) { () -> Int32 in
            uv_run(uvLoop, UV_RUN_DEFAULT)
            // `uv_run` returns only when no handle is active: `closeAllHandles()` has run.
            assert(confined.isClosingHandles, "uv_run returned before shutdown")
            return uv_loop_close(uvLoop)
        }
        shared.withLockedValue { state in
            state.phase = .closed
            state.closeResult = closeResult
        }
        shared.broadcast()
    }

    // MARK: - Work

    /// Runs `work` on the loop thread, after everything queued before it.
    ///
    /// Callable from any thread. Closures from one thread run in the order they were queued; a
    /// closure queued from the loop thread runs on the next drain, never inside the current one.
    /// Wake-ups coalesce: many closures queued while the loop is busy cost one wake-up.
    ///
    /// - Parameter work: The closure to run on the loop thread.
    /// - Returns: `true` if `work` was queued; `false` if ``shutdown()`` was already called, in
    ///   which case `work` is dropped (released on the calling thread) and never runs.
    /// - Complexity: Amortised O(1).
    @discardableResult
    public func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        shared.withLockedValue { state in
            switch state.queue.enqueue(work) {
            case .wakeLoop:
                wakeLoop()
                return true
            case .none:
                return true
            case .reject:
                return false
            }
        }
    }

    /// Sends the one `uv_async_t` wake-up. Call with the lock held: the handle is closed only
    /// after the loop took its final batch under the same lock, so it is open here.
    func wakeLoop() {
        let result = uv_async_send(wakeHandle)
        precondition(result == 0, "uv_async_send failed: \(LibUVEventLoopError(code: result, operation: "uv_async_send"))")
    }

    /// The `uv_async_t` callback: runs everything queued so far, outside the lock.
    private func drainQueue() {
        let batch = shared.withLockedValue { $0.queue.takeBatch() }
        for work in batch.items {
            work()
        }
        if batch.isFinal {
            closeAllHandles()
        }
    }

    // MARK: - Confinement

    /// The loop running on the calling thread (inside its ``run()``), if any.
    ///
    /// A Realm opened on a loop thread delivers its notifications through that loop.
    public static var current: LibUVEventLoop? {
        runningLoopMarker.current.map { Unmanaged<LibUVEventLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Whether the calling thread is the one running this loop.
    ///
    /// Costs one thread-local read; no lock.
    public var inEventLoop: Bool {
        Self.runningLoopMarker.isCurrent(self)
    }

    /// Traps unless called on the loop thread.
    ///
    /// Use it to guard loop-confined state, as timers do.
    ///
    /// - Parameters:
    ///   - file: The file to report; defaults to the caller's.
    ///   - line: The line to report; defaults to the caller's.
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(
            inEventLoop,
            "This must run on the LibUVEventLoop's thread; hop there with execute(_:)",
            file: file, line: line
        )
    }

    /// Runs `body` with the loop-confined state, trapping unless on the loop thread.
    ///
    /// `body` must not call user code.
    func withConfinedState<R>(_ body: (inout ConfinedState) -> R) -> R {
        preconditionInEventLoop()
        return body(&confined)
    }

    /// The number of times the loop was woken to drain its queue (`uv_async_t` callbacks).
    var wakeUpCount: Int {
        shared.withLockedValue { $0.queue.drainCount }
    }
}

/// `pointer` viewed as the `uv_handle_t` every libuv handle type begins with.
func uvHandle<Handle>(_ pointer: UnsafeMutablePointer<Handle>) -> UnsafeMutablePointer<uv_handle_t> {
    UnsafeMutablePointer<uv_handle_t>(OpaquePointer(pointer))
}
