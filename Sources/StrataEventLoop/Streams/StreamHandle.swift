import CLibUV

/// A libuv stream handle (`uv_tcp_t` or `uv_pipe_t`) owned by an ``LibUVEventLoop``: the memory, the
/// registration that keeps it alive while libuv uses it, and its close.
///
/// Loop-confined. The loop's registry holds the handle from ``register()`` until its close
/// callback ran, so shutdown can close it properly and `uv_loop_close` succeeds.
class StreamHandle {
    let loop: LibUVEventLoop
    /// Large enough for either handle type; valid until `deinit`, after the close callback.
    let raw: UnsafeMutableRawPointer
    private(set) var isClosing = false
    /// Called once, after the handle closed.
    var onClosed: (() -> Void)?
    /// A listener's: a client is waiting to be accepted (status 0), or accepting one failed (a
    /// negative libuv error code, e.g. `UV_EMFILE`).
    var onConnection: ((Int32) -> Void)?
    /// A connection's: bytes arrived (`count` > 0), the peer closed (`UV_EOF`), or an error.
    var onRead: ((UnsafeRawBufferPointer, Int) -> Void)?
    /// The buffer libuv reads into (allocated on first read).
    var readBuffer: UnsafeMutableRawBufferPointer?

    init(loop: LibUVEventLoop) {
        loop.preconditionInEventLoop()
        self.loop = loop
        raw = .allocate(byteCount: max(MemoryLayout<uv_tcp_t>.size, MemoryLayout<uv_pipe_t>.size),
                        alignment: max(MemoryLayout<uv_tcp_t>.alignment, MemoryLayout<uv_pipe_t>.alignment))
    }

    deinit {
        raw.deallocate()
        readBuffer?.deallocate()
    }

    var stream: UnsafeMutablePointer<uv_stream_t> { raw.assumingMemoryBound(to: uv_stream_t.self) }
    var handle: UnsafeMutablePointer<uv_handle_t> { raw.assumingMemoryBound(to: uv_handle_t.self) }
    var tcp: UnsafeMutablePointer<uv_tcp_t> { raw.assumingMemoryBound(to: uv_tcp_t.self) }
    var pipe: UnsafeMutablePointer<uv_pipe_t> { raw.assumingMemoryBound(to: uv_pipe_t.self) }

    /// Initialises the libuv handle as TCP or a pipe and registers it with the loop.
    ///
    /// - Returns: false when the loop is shutting down (nothing was initialised).
    func initialize(unix: Bool) throws(LibUVEventLoopError) -> Bool {
        let accepted = loop.withConfinedState { state in
            guard !state.isClosingHandles else { return false }
            state.streams[ObjectIdentifier(self)] = self
            return true
        }
        guard accepted else { return false }
        let result = unix ? uv_pipe_init(loop.uvLoop, pipe, 0) : uv_tcp_init(loop.uvLoop, tcp)
        if result < 0 {
            unregister()
            throw LibUVEventLoopError(code: result, operation: unix ? "uv_pipe_init" : "uv_tcp_init")
        }
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        return true
    }

    /// Closes the handle; idempotent.
    func close() {
        loop.preconditionInEventLoop()
        guard !isClosing else { return }
        isClosing = true
        willClose()
        uv_close(handle, streamHandleClosed)
    }

    /// Runs before `uv_close` (subclasses stop reading, fail pending work).
    func willClose() {}

    fileprivate func didClose() {
        let onClosed = self.onClosed
        self.onClosed = nil
        onConnection = nil
        onRead = nil
        onClosed?()
        unregister()
    }

    private func unregister() {
        // May release the last reference to `self`; libuv no longer touches the handle.
        _ = loop.withConfinedState { $0.streams.removeValue(forKey: ObjectIdentifier(self)) }
    }

    static func from(_ handle: UnsafeMutableRawPointer?) -> StreamHandle {
        guard let handle, let data = handle.assumingMemoryBound(to: uv_handle_t.self).pointee.data else {
            preconditionFailure("a libuv stream without its StreamHandle")
        }
        return Unmanaged<StreamHandle>.fromOpaque(data).takeUnretainedValue()
    }
}

private func streamHandleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    StreamHandle.from(handle).didClose()
}
