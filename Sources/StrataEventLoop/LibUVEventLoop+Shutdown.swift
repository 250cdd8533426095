import CLibUV

extension LibUVEventLoop {
    /// Stops the loop: refuses new work, runs what is queued, closes every handle.
    ///
    /// Callable from any thread, including the loop thread, any number of times. It returns at
    /// once; the loop then
    /// 1. refuses new work — from here on ``execute(_:)`` drops the closure and returns `false`;
    /// 2. runs, in order, every closure queued before the call;
    /// 3. closes its wake-up handle and every timer with `uv_close` (timers that have not fired
    ///    never will), and walks the loop (`uv_walk`) to close any other handle still open;
    /// 4. once the close callbacks ran, closes the `uv_loop_t` and returns from ``run()``.
    ///
    /// Use ``shutdownAndWait()`` to also wait for that to finish.
    public func shutdown() {
        shared.withLockedValue { state in
            if state.queue.requestShutdown() {
                // Wake the loop for its final drain; the handle is still open (see `wakeLoop`).
                wakeLoop()
            }
        }
    }

    /// Closes every handle on the loop; runs on the loop thread right after the final drain.
    ///
    /// Handle memory stays valid until the close callbacks ran: timers are kept alive by the
    /// loop's registry until their callback removes them, and the wake-up handle lives until
    /// `deinit`.
    func closeAllHandles() {
        let (timers, streams) = withConfinedState { state in
            state.isClosingHandles = true
            return (Array(state.timers.values), Array(state.streams.values))
        }
        for timer in timers {
            timer.close()
        }
        for stream in streams {
            stream.close()
        }
        uv_close(uvHandle(wakeHandle), nil)
        // Anything else someone opened on this loop (through `uvLoop`) is closed too, so that
        // `uv_loop_close` succeeds; its owner must keep its memory valid until `run()` returns.
        uv_walk(uvLoop, closeIfOpen, nil)
    }

    /// What `uv_loop_close` returned when ``run()`` finished (0 on success), or `nil` while the
    /// loop has not finished.
    var lastCloseResult: Int32? {
        shared.withLockedValue { $0.closeResult }
    }
}

/// The `uv_walk` callback of shutdown: closes `handle` unless it is already closing.
private func closeIfOpen(_ handle: UnsafeMutablePointer<uv_handle_t>?, _: UnsafeMutableRawPointer?) {
    guard let handle, uv_is_closing(handle) == 0 else { return }
    uv_close(handle, nil)
}
