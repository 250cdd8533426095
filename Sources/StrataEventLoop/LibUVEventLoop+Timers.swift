extension LibUVEventLoop {
    /// Calls `body` on the loop thread after `delay`, and then every `interval` if one is given.
    ///
    /// Must be called on the loop thread (it traps otherwise); from another thread use
    /// ``schedule(after:repeating:_:)``. Timers are libuv timers: millisecond resolution (delays
    /// round up), ordered by deadline, and timers with the same deadline fire in the order they
    /// were scheduled. The delay is measured from the call.
    ///
    /// ```swift
    /// loop.execute {
    ///     let poll = loop.scheduleTimer(after: .zero, repeating: .milliseconds(100)) { refresh() }
    ///     loop.scheduleTimer(after: .seconds(5)) { poll.cancel() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - delay: How long to wait before the first call; zero or negative means the next loop
    ///     iteration.
    ///   - interval: The period of a repeating timer (at least one millisecond), or `nil` for a
    ///     timer that fires once.
    ///   - body: The closure to call on the loop thread.
    /// - Returns: A handle that cancels the timer. The timer runs whether or not you keep it.
    @discardableResult
    public func scheduleTimer(
        after delay: Duration,
        repeating interval: Duration? = nil,
        _ body: @escaping () -> Void
    ) -> TimerHandle {
        preconditionInEventLoop()
        let timer = TimerHandle(loop: self, delay: delay, interval: interval, body: body)
        timer.start()
        return timer
    }

    /// Calls `body` on the loop thread after `delay` (and every `interval`), from any thread.
    ///
    /// Off the loop thread, the timer is created by a closure sent with ``execute(_:)``, so the
    /// delay counts from when the loop runs that closure. After ``shutdown()`` the timer never
    /// starts.
    ///
    /// - Parameters:
    ///   - delay: How long to wait before the first call.
    ///   - interval: The period of a repeating timer, or `nil` for a timer that fires once.
    ///   - body: The closure to call on the loop thread.
    /// - Returns: A handle that cancels the timer from any thread.
    @discardableResult
    public func schedule(
        after delay: Duration,
        repeating interval: Duration? = nil,
        _ body: @escaping @Sendable () -> Void
    ) -> TimerHandle {
        let timer = TimerHandle(loop: self, delay: delay, interval: interval, body: body)
        if inEventLoop {
            timer.start()
        } else {
            execute { timer.start() }
        }
        return timer
    }

    /// `duration` in whole milliseconds for libuv, rounded up; 0 for zero or negative durations.
    static func milliseconds(_ duration: Duration) -> UInt64 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let (wholeSeconds, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        let fraction = UInt64((attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond)
        let (total, overflowAgain) = wholeSeconds.addingReportingOverflow(fraction)
        return overflowAgain ? .max : total
    }
}
