#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A joinable pthread that runs one closure; the thread behind ``LibUVEventLoop/startThread(name:)``.
struct LoopThread {
    private let handle: pthread_t

    /// Starts a thread named `name` (truncated to the 15 bytes Linux allows) that runs `body`.
    ///
    /// - Throws: ``LibUVEventLoopError`` naming `pthread_create` and its errno (e.g. `EAGAIN`).
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(LibUVEventLoopError) -> LoopThread {
        let start = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        #if canImport(Glibc)
            var handle = pthread_t()
            let result = pthread_create(&handle, nil, loopThreadMain, start)
        #else
            var created: pthread_t?
            let result = pthread_create(&created, nil, loopThreadMain, start)
        #endif
        guard result == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(start).release()
            // libuv's error numbers are negated errnos.
            throw LibUVEventLoopError(code: -result, operation: "pthread_create")
        }
        #if canImport(Glibc)
            return LoopThread(handle: handle)
        #else
            return LoopThread(handle: created!)
        #endif
    }

    /// Waits for the thread to finish.
    func join() {
        let result = pthread_join(handle, nil)
        precondition(result == 0, "pthread_join failed: \(result)")
    }

    /// Lets the thread release its resources by itself when it finishes; it can no longer be
    /// joined.
    func detach() {
        let result = pthread_detach(handle)
        precondition(result == 0, "pthread_detach failed: \(result)")
    }
}

/// What a new ``LoopThread`` runs; passed through `pthread_create` as a retained pointer.
private final class ThreadStart {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    func run() {
        setCurrentThreadName(name)
        body()
    }
}

/// Names the calling thread (visible in debuggers, `top -H`, TSan reports).
private func setCurrentThreadName(_ name: String) {
    // Linux allows 16 bytes including the terminating NUL; cut at a character boundary.
    var truncated = ""
    for character in name where truncated.utf8.count + character.utf8.count <= 15 {
        truncated.append(character)
    }
    #if canImport(Glibc)
        // Glibc's module map hides the GNU `pthread_setname_np`; writing the thread's `comm` is the
        // same operation (best effort: a missing /proc leaves the thread unnamed).
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = truncated.withCString { write(fd, $0, strlen($0)) }
    #else
        _ = pthread_setname_np(truncated)
    #endif
}

#if canImport(Glibc)
    private func loopThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let argument else { return nil }
        Unmanaged<ThreadStart>.fromOpaque(argument).takeRetainedValue().run()
        return nil
    }
#else
    private func loopThreadMain(_ argument: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        Unmanaged<ThreadStart>.fromOpaque(argument).takeRetainedValue().run()
        return nil
    }
#endif
