extension EventDaemon {
    /// The configured limits, with `maxConnections` lowered to what the process's descriptor
    /// limit leaves room for next to the ``DescriptorLimit/reserve`` kept for the store:
    /// connections that took every descriptor would leave a checkpoint none for its new log
    /// segment. (``logLoweredConnectionLimit()`` says so once the daemon listens.)
    ///
    /// - Throws: ``DaemonError`` when the descriptor limit leaves no room for a single client.
    func connectionLimits(for configured: DaemonLimits) throws -> DaemonLimits {
        var limits = configured
        let soft = DescriptorLimit.current.soft
        let cap = DescriptorLimit.connectionCap(softLimit: soft)
        guard cap > 0 else {
            throw DaemonError("the descriptor limit (RLIMIT_NOFILE \(soft)) leaves no room for clients next to the "
                              + "\(DescriptorLimit.reserve) descriptors kept for the store: raise it (ulimit -n)")
        }
        limits.maxConnections = min(limits.maxConnections, cap)
        return limits
    }

    /// Logs a warning when ``connectionLimits(for:)`` lowered the configured `maxConnections` (after
    /// the start, so that a refused start prints its one error line only).
    func logLoweredConnectionLimit() {
        guard let limits = try? connectionLimits(for: options.config.limits), limits.maxConnections < options.config.limits.maxConnections else {
            return
        }
        let (configured, soft, reserve) = (options.config.limits.maxConnections, DescriptorLimit.current.soft,
                                           DescriptorLimit.reserve)
        logger.warning("""
            maxConnections lowered from \(configured) to \(limits.maxConnections): the descriptor limit \
            (RLIMIT_NOFILE) is \(soft), and \(reserve) descriptors are kept for the store
            """)
    }
}
