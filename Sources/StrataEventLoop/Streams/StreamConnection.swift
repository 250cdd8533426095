import CLibUV

/// A connected stream (an accepted TCP or Unix-domain client) on an ``LibUVEventLoop``.
///
/// Set ``onRead``, ``onEnd`` and ``onClose``, then ``startReading()``. ``write(_:completion:)``
/// queues bytes; completions run on the loop in write order. When the peer ends its side
/// (end of stream) ``onEnd`` runs and the connection stays open for writing, so replies still
/// reach a client that half-closed; close it with ``close()`` when done. A read error ends and
/// closes it. ``onClose`` runs once when the connection closed (also at loop shutdown).
/// Loop-confined.
///
/// Not part of Strata's API: SPI for the demo daemon in `Demo/`, which imports it with
/// `@_spi(StrataDaemon) import StrataEventLoop`; it may change in any release.
@_spi(StrataDaemon) public final class StreamConnection {
    let handle: StreamHandle
    private var reading = false
    private var ended = false
    private var shuttingDown = false

    /// Called with each chunk of bytes read.
    @_spi(StrataDaemon) public var onRead: (([UInt8]) -> Void)?
    /// Called once when the input ends: nil for the peer's end of stream (the connection stays
    /// writable), else the read error (the connection is closed).
    @_spi(StrataDaemon) public var onEnd: ((LibUVEventLoopError?) -> Void)?
    /// Called once when the connection closed.
    @_spi(StrataDaemon) public var onClose: (() -> Void)?

    init(loop: LibUVEventLoop) {
        handle = StreamHandle(loop: loop)
        handle.onClosed = { [weak self] in self?.closed() }
    }

    /// Starts (or resumes) reading.
    @_spi(StrataDaemon) public func startReading() {
        handle.loop.preconditionInEventLoop()
        guard !reading, !handle.isClosing else { return }
        reading = true
        handle.onRead = { [weak self] buffer, count in self?.received(buffer, count) }
        let result = uv_read_start(handle.stream, allocateReadBuffer, bytesRead)
        if result < 0 { fail(LibUVEventLoopError(code: result, operation: "uv_read_start")) }
    }

    /// Stops reading until ``startReading()`` (backpressure); the peer's writes then wait in the
    /// kernel's buffers.
    @_spi(StrataDaemon) public func stopReading() {
        handle.loop.preconditionInEventLoop()
        guard reading, !handle.isClosing else { return }
        reading = false
        uv_read_stop(handle.stream)
    }

    /// Whether the connection reads (see ``stopReading()``).
    package var isReading: Bool { reading }

    /// Bytes queued for writing and not yet handed to the kernel.
    @_spi(StrataDaemon) public var queuedWriteBytes: Int {
        handle.isClosing ? 0 : Int(uv_stream_get_write_queue_size(handle.stream))
    }

    /// Queues `bytes` for writing; `completion` runs on the loop once they were written (nil) or
    /// failed.
    ///
    /// A failed write means the peer has gone (`EPIPE`, `ECONNRESET`) or the stream broke: the
    /// input ends with that error (``onEnd``) and the connection closes, so nothing more is
    /// written to it; writes to a closing connection fail at once with `ECANCELED`.
    @_spi(StrataDaemon) public func write(_ bytes: [UInt8], completion: ((LibUVEventLoopError?) -> Void)? = nil) {
        handle.loop.preconditionInEventLoop()
        guard !handle.isClosing, !bytes.isEmpty else {
            completion?(handle.isClosing ? LibUVEventLoopError(code: UV_ECANCELED.rawValue, operation: "uv_write") : nil)
            return
        }
        let request = WriteRequest(bytes: bytes) { [weak self] error in
            if let error { self?.writeFailed(error) }
            completion?(error)
        }
        let result = request.start(on: handle.stream)
        if result < 0 {
            let error = LibUVEventLoopError(code: result, operation: "uv_write")
            writeFailed(error)
            completion?(error)
        }
    }

    /// Closes the connection after the queued writes were written (`uv_shutdown`, then
    /// `uv_close`).
    @_spi(StrataDaemon) public func close() {
        handle.loop.preconditionInEventLoop()
        guard !handle.isClosing, !shuttingDown else { return }
        stopReading()
        shuttingDown = true
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        request.pointee.data = Unmanaged.passRetained(handle).toOpaque()
        if uv_shutdown(request, handle.stream, shutdownFinished) < 0 {
            Unmanaged<StreamHandle>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            handle.close()
        }
    }

    /// Closes the connection at once, dropping queued writes.
    @_spi(StrataDaemon) public func abort() {
        handle.loop.preconditionInEventLoop()
        handle.close()
    }

    private func received(_ buffer: UnsafeRawBufferPointer, _ count: Int) {
        if count > 0 {
            onRead?(Array(buffer.prefix(count)))
        } else if Int32(count) == UV_EOF.rawValue {
            // The peer ended its side: stop reading, keep writing.
            stopReading()
            finish(nil)
        } else if count < 0 {
            fail(LibUVEventLoopError(code: Int32(count), operation: "read"))
        }
    }

    private func writeFailed(_ error: LibUVEventLoopError) {
        // ECANCELED: the connection is closing already and libuv dropped the queued write.
        guard error.code != UV_ECANCELED.rawValue else { return }
        fail(error)
    }

    private func fail(_ error: LibUVEventLoopError?) {
        finish(error)
        handle.close()
    }

    private func closed() {
        finish(nil)
        let onClose = self.onClose
        self.onClose = nil
        onClose?()
    }

    private func finish(_ error: LibUVEventLoopError?) {
        guard !ended else { return }
        ended = true
        reading = false
        let onEnd = self.onEnd
        self.onEnd = nil
        onRead = nil
        onEnd?(error)
    }
}

/// One `uv_write`: the request, the bytes (alive until the callback) and the completion.
private final class WriteRequest {
    let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
    let bytes: UnsafeMutableBufferPointer<UInt8>
    let completion: ((LibUVEventLoopError?) -> Void)?

    init(bytes: [UInt8], completion: ((LibUVEventLoopError?) -> Void)?) {
        self.bytes = .allocate(capacity: bytes.count)
        _ = self.bytes.initialize(from: bytes)
        self.completion = completion
    }

    deinit {
        request.deallocate()
        bytes.deallocate()
    }

    /// The most bytes one `uv_buf_t` describes (its length is 32 bits); longer writes use several.
    static let maximumBufferBytes = 1 << 30

    func start(on stream: UnsafeMutablePointer<uv_stream_t>) -> Int32 {
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let base = UnsafeMutableRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
        var buffers = stride(from: 0, to: bytes.count, by: Self.maximumBufferBytes).map { offset in
            uv_buf_init(base + offset, UInt32(min(Self.maximumBufferBytes, bytes.count - offset)))
        }
        // libuv copies the buffer descriptions; the bytes stay alive until the callback.
        let result = uv_write(request, stream, &buffers, UInt32(buffers.count), writeFinished)
        if result < 0 { Unmanaged<WriteRequest>.fromOpaque(request.pointee.data).release() }
        return result
    }
}

private func writeFinished(_ request: UnsafeMutablePointer<uv_write_t>?, _ status: Int32) {
    guard let request, let data = request.pointee.data else { return }
    let write = Unmanaged<WriteRequest>.fromOpaque(data).takeRetainedValue()
    write.completion?(status < 0 ? LibUVEventLoopError(code: status, operation: "uv_write") : nil)
}

private func shutdownFinished(_ request: UnsafeMutablePointer<uv_shutdown_t>?, _ status: Int32) {
    guard let request else { return }
    let handle = Unmanaged<StreamHandle>.fromOpaque(request.pointee.data).takeRetainedValue()
    request.deallocate()
    handle.close()
}

private func allocateReadBuffer(_ handle: UnsafeMutablePointer<uv_handle_t>?, _ suggested: Int,
                                _ buffer: UnsafeMutablePointer<uv_buf_t>?) {
    let stream = StreamHandle.from(UnsafeMutableRawPointer(handle))
    if stream.readBuffer == nil { stream.readBuffer = .allocate(byteCount: 65_536, alignment: 1) }
    let storage = stream.readBuffer!
    buffer?.pointee = uv_buf_init(storage.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(storage.count))
}

private func bytesRead(_ stream: UnsafeMutablePointer<uv_stream_t>?, _ count: Int, _ buffer: UnsafePointer<uv_buf_t>?) {
    let handle = StreamHandle.from(UnsafeMutableRawPointer(stream))
    let base = buffer.flatMap { UnsafeRawPointer($0.pointee.base) }
    handle.onRead?(UnsafeRawBufferPointer(start: base, count: max(0, count)), count)
}
