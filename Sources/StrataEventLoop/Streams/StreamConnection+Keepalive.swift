import CLibUV
#if canImport(Glibc)
import Glibc
#endif

extension StreamConnection {
    /// Turns on TCP keepalive: after `idle` without traffic the kernel probes the peer every
    /// `interval`, and after `probes` unanswered probes the connection fails (the read ends with
    /// `ETIMEDOUT` and the connection closes). This notices a peer that vanished without closing
    /// (a machine that lost power or its network, a NAT that dropped the flow) on a connection
    /// that may never be written to, such as a subscription whose result does not change.
    ///
    /// A Unix-domain connection has no keepalive (its peer's end is always seen); the call does
    /// nothing for it.
    ///
    /// - Returns: false when a socket option could not be set.
    @discardableResult
    @_spi(StrataDaemon) public func enableKeepalive(idle: Duration, interval: Duration, probes: Int) -> Bool {
        handle.loop.preconditionInEventLoop()
        guard !handle.isClosing, handle.handle.pointee.type == UV_TCP else { return true }
        let seconds = { (duration: Duration) in Int32(clamping: max(1, duration.components.seconds)) }
        guard uv_tcp_keepalive(handle.tcp, 1, UInt32(seconds(idle))) == 0 else { return false }
        var descriptor: uv_os_fd_t = -1
        guard uv_fileno(handle.handle, &descriptor) == 0 else { return false }
        // libuv sets the idle time only; the probe interval and count are set here.
        var intervalSeconds = seconds(interval), count = Int32(clamping: max(1, probes))
        let size = socklen_t(MemoryLayout<Int32>.size)
        return setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &intervalSeconds, size) == 0
            && setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPCNT, &count, size) == 0
    }

    /// The keepalive settings of the socket, as the kernel has them (for tests): whether it is on,
    /// the idle time, interval and probe count in seconds; nil for a connection that is not TCP.
    package var keepaliveSettings: (enabled: Bool, idle: Int32, interval: Int32, probes: Int32)? {
        handle.loop.preconditionInEventLoop()
        guard !handle.isClosing, handle.handle.pointee.type == UV_TCP else { return nil }
        var descriptor: uv_os_fd_t = -1
        guard uv_fileno(handle.handle, &descriptor) == 0 else { return nil }
        func option(_ level: Int32, _ name: Int32) -> Int32 {
            var value: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(descriptor, level, name, &value, &size) == 0 ? value : -1
        }
        return (option(SOL_SOCKET, SO_KEEPALIVE) != 0, option(Int32(IPPROTO_TCP), TCP_KEEPIDLE),
                option(Int32(IPPROTO_TCP), TCP_KEEPINTVL), option(Int32(IPPROTO_TCP), TCP_KEEPCNT))
    }
}
