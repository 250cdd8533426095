extension EventDaemon {
    /// The configured limits, with `maxConnections` lowered (and logged) to what the process's
    /// descriptor limit leaves room for next to the ``DescriptorLimit/reserve`` kept for the store:
    /// connections that took every descriptor would leave a checkpoint none for its new log
    /// segment.
    ///
    /// - Throws: ``DaemonError`` when the descriptor limit leaves no room for a single client.
    func connectionLimits() throws -> DaemonLimits {
        var limits = options.config.limits
        let soft = DescriptorLimit.current.soft
        let cap = DescriptorLimit.connectionCap(softLimit: soft)
        guard cap > 0 else {
            throw DaemonError("the descriptor limit (RLIMIT_NOFILE \(soft)) leaves no room for clients next to the "
                              + "\(DescriptorLimit.reserve) descriptors kept for the store: raise it (ulimit -n)")
        }
        if limits.maxConnections > cap {
            let reserve = DescriptorLimit.reserve
            logger.warning("""
                maxConnections lowered from \(limits.maxConnections) to \(cap): the descriptor limit (RLIMIT_NOFILE) \
                is \(soft), and \(reserve) descriptors are kept for the store
                """)
            limits.maxConnections = cap
        }
        return limits
    }
}
