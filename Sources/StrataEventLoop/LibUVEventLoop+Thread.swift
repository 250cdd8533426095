extension LibUVEventLoop {
    /// Creates a loop and runs it on a new thread; returns once the loop is running.
    ///
    /// Stop it with ``shutdownAndWait()``, which also joins the thread.
    ///
    /// - Parameter name: The thread's name, as debuggers and `top -H` show it (Linux keeps the
    ///   first 15 bytes).
    /// - Returns: The running loop.
    /// - Throws: ``LibUVEventLoopError`` if the loop cannot be initialised (`uv_loop_init`,
    ///   `uv_async_init`) or the thread cannot be created (`pthread_create`, e.g. `EAGAIN`).
    public static func startThread(name: String = "strata-loop") throws(LibUVEventLoopError) -> LibUVEventLoop {
        let loop = try LibUVEventLoop()
        let thread = try LoopThread.spawn(name: name) { loop.run() }
        loop.shared.withLockedValue { $0.thread = thread }
        loop.shared.wait(until: { $0.phase != .idle }, then: { _ in })
        return loop
    }

    /// Calls ``shutdown()`` and waits until ``run()`` has returned and the loop is closed.
    ///
    /// For a loop from ``startThread(name:)`` this joins the loop's thread. Callable from any
    /// thread except the loop's own (which would wait for itself; it traps instead), and from
    /// several threads at once. For a loop you run yourself, it waits for your ``run()`` to
    /// return — so if the loop is never run, it waits forever: use ``shutdown()`` there.
    public func shutdownAndWait() {
        precondition(!inEventLoop, "shutdownAndWait() on the loop's own thread would wait forever; call shutdown()")
        shutdown()
        let thread = shared.withLockedValue { state in
            defer { state.thread = nil }
            return state.thread
        }
        thread?.join()
        shared.wait(until: { $0.phase == .closed }, then: { _ in })
    }
}
