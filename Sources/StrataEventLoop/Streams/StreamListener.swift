#if canImport(Glibc)
import Glibc
#endif
import CLibUV

/// A listening TCP or Unix-domain socket on an ``LibUVEventLoop`` that hands each accepted client to
/// a closure as a ``StreamConnection``.
///
/// ```swift
/// loop.execute {
///     let listener = try! StreamListener.tcp(host: "127.0.0.1", port: 0, on: loop) { connection in
///         connection.onRead = { bytes in connection.write(bytes) }   // echo
///         connection.startReading()
///     }
///     print("listening on", listener.port)
/// }
/// ```
///
/// Loop-confined: create, use and close it on the loop thread. Loop shutdown closes it (and
/// every connection) too.
///
/// When a client cannot be accepted for lack of descriptors (`EMFILE`, `ENFILE`), libuv frees a
/// descriptor it keeps in reserve, accepts and closes the clients waiting, and takes it back.
/// When that reserve is gone (another thread took the freed slot meanwhile), libuv passes the
/// error on and would try again at once, as long as the listening socket stays readable: the
/// listener then does the same with a spare descriptor of its own, so the loop neither spins nor
/// dies, and ``onAcceptError`` hears of it. Accepting resumes once descriptors free up.
///
/// Not part of Strata's API: SPI for the demo daemon in `Demo/`, which imports it with
/// `@_spi(StrataDaemon) import StrataEventLoop`; it may change in any release.
@_spi(StrataDaemon) public final class StreamListener {
    private let handle: StreamHandle
    private let accept: (StreamConnection) -> Void
    private let isUnix: Bool
    /// The bound TCP port (useful after binding port 0); 0 for a Unix socket.
    @_spi(StrataDaemon) public private(set) var port: Int = 0
    /// Called on the loop thread when accepting a client failed with an error libuv passed on
    /// (`EMFILE`, `ENFILE` when its own reserve was gone: after the clients waiting were closed).
    @_spi(StrataDaemon) public var onAcceptError: ((LibUVEventLoopError) -> Void)?
    /// The descriptor kept to make room for closing waiting clients when none is left (-1: none).
    private var spareDescriptor: Int32 = -1

    private init(loop: LibUVEventLoop, isUnix: Bool, accept: @escaping (StreamConnection) -> Void) {
        handle = StreamHandle(loop: loop)
        self.isUnix = isUnix
        self.accept = accept
    }

    /// Listens on a TCP address, IPv4 (`127.0.0.1`) or IPv6 (`::1`), port 0 meaning any free
    /// port. An IPv6 listener takes IPv6 connections only (`IPV6_V6ONLY`).
    ///
    /// - Throws: ``LibUVEventLoopError``, e.g. `EADDRINUSE` from `uv_listen`, `EINVAL` for a bad host
    ///   or a port outside 0...65535.
    @_spi(StrataDaemon) public static func tcp(
        host: String, port: Int, backlog: Int32 = 511, on loop: LibUVEventLoop,
        accept: @escaping (StreamConnection) -> Void
    ) throws(LibUVEventLoopError) -> StreamListener {
        guard (0...65_535).contains(port) else { throw LibUVEventLoopError(code: UV_EINVAL.rawValue, operation: "uv_ip4_addr") }
        let listener = StreamListener(loop: loop, isUnix: false, accept: accept)
        guard try listener.handle.initialize(unix: false) else { throw LibUVEventLoopError.shuttingDown }
        do {
            let bound: Int32
            if host.contains(":") {
                var address = sockaddr_in6()
                try LibUVEventLoopError.check(uv_ip6_addr(host, Int32(port), &address), "uv_ip6_addr")
                bound = withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        uv_tcp_bind(listener.handle.tcp, $0, UInt32(UV_TCP_IPV6ONLY.rawValue))
                    }
                }
            } else {
                var address = sockaddr_in()
                try LibUVEventLoopError.check(uv_ip4_addr(host, Int32(port), &address), "uv_ip4_addr")
                bound = withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_bind(listener.handle.tcp, $0, 0) }
                }
            }
            try LibUVEventLoopError.check(bound, "uv_tcp_bind")
            try listener.listen(backlog)
            listener.port = listener.boundPort()
        } catch {
            listener.close()
            throw error
        }
        return listener
    }

    /// Listens on a Unix-domain socket at `path`, replacing a stale socket file.
    ///
    /// - Parameters:
    ///   - permissions: The socket file's mode, set after binding and before listening (so no
    ///     client can connect while the mode is wider); nil keeps what the umask gave.
    ///   - group: The group to give the socket file (nil: the process's).
    /// - Throws: ``LibUVEventLoopError``, e.g. `EACCES` or `ENOENT` for a bad path, `EPERM` from
    ///   `chown` for a group the process may not use.
    @_spi(StrataDaemon) public static func unix(
        path: String, permissions: UInt32? = nil, group: UInt32? = nil, backlog: Int32 = 511, on loop: LibUVEventLoop,
        accept: @escaping (StreamConnection) -> Void
    ) throws(LibUVEventLoopError) -> StreamListener {
        let listener = StreamListener(loop: loop, isUnix: true, accept: accept)
        guard try listener.handle.initialize(unix: true) else { throw LibUVEventLoopError.shuttingDown }
        do {
            var status = stat()
            if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
            try LibUVEventLoopError.check(uv_pipe_bind(listener.handle.pipe, path), "uv_pipe_bind")
            if let group { try LibUVEventLoopError.check(chown(path, uid_t.max, gid_t(group)) == 0 ? 0 : -errno, "chown") }
            if let permissions { try LibUVEventLoopError.check(chmod(path, mode_t(permissions)) == 0 ? 0 : -errno, "chmod") }
            try listener.listen(backlog)
        } catch {
            listener.close()
            throw error
        }
        return listener
    }

    /// Stops listening; connections already accepted stay open.
    @_spi(StrataDaemon) public func close() {
        handle.close()
        releaseSpareDescriptor()
    }

    deinit {
        // A listener nobody holds any more stops listening (on its loop).
        let handle = self.handle
        if handle.loop.inEventLoop { handle.close() }
        releaseSpareDescriptor()
    }

    private func listen(_ backlog: Int32) throws(LibUVEventLoopError) {
        // The handle (kept alive by the loop's registry) calls back while the listener lives.
        handle.onConnection = { [weak self] status in
            if status == 0 { self?.acceptOne() } else { self?.acceptFailed(status) }
        }
        try LibUVEventLoopError.check(uv_listen(handle.stream, backlog, connectionArrived), "uv_listen")
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// Accepting failed (`status`: libuv's negative error code): for lack of descriptors, closes
    /// the clients waiting (libuv accepts again at once, as long as the listening socket is
    /// readable), then reports the error. Called on the loop thread.
    func acceptFailed(_ status: Int32) {
        if status == UV_EMFILE.rawValue || status == UV_ENFILE.rawValue { closeWaitingClients() }
        onAcceptError?(LibUVEventLoopError(code: status, operation: "accept"))
    }

    /// Frees the spare descriptor, accepts and closes every client waiting, then takes the spare
    /// again.
    private func closeWaitingClients() {
        var descriptor = uv_os_fd_t(-1)
        guard uv_fileno(handle.handle, &descriptor) == 0 else { return }
        releaseSpareDescriptor()
        while true {
            let client = Glibc.accept(descriptor, nil, nil)
            if client >= 0 {
                Glibc.close(client)
            } else if errno != EINTR {
                break
            }
        }
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    private func releaseSpareDescriptor() {
        if spareDescriptor >= 0 { Glibc.close(spareDescriptor) }
        spareDescriptor = -1
    }

    private func boundPort() -> Int {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getsockname(handle.tcp, $0, &length) }
        }
        guard result == 0 else { return 0 }
        // `sin_port` and `sin6_port` are at the same offset, after the family.
        return withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    private func acceptOne() {
        guard !handle.isClosing else { return }
        let connection = StreamConnection(loop: handle.loop)
        do {
            guard try connection.handle.initialize(unix: isUnix) else { return }
        } catch {
            return
        }
        guard uv_accept(handle.stream, connection.handle.stream) == 0 else {
            connection.close()
            return
        }
        accept(connection)
    }
}

private func connectionArrived(_ server: UnsafeMutablePointer<uv_stream_t>?, _ status: Int32) {
    guard let server else { return }
    StreamHandle.from(UnsafeMutableRawPointer(server)).onConnection?(status)
}

extension LibUVEventLoopError {
    /// The loop is shutting down and accepts no new handles.
    static var shuttingDown: LibUVEventLoopError { LibUVEventLoopError(code: -125 /* UV_ECANCELED */, operation: "listen") }
}
