extension LibUVEventLoop: StrataScheduler {
    /// Runs `work` on the loop thread; the same as ``execute(_:)``, dropping `work` after
    /// ``shutdown()``.
    ///
    /// - Parameter work: The closure to run on the loop thread.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        execute(work)
    }

    /// Whether the caller runs on the loop thread; the same as ``inEventLoop``.
    public var isOnSchedulerThread: Bool {
        inEventLoop
    }
}
