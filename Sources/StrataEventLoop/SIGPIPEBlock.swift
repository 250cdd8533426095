#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps SIGPIPE from ending the process while a thread runs an ``LibUVEventLoop``.
///
/// Writing to a socket whose peer has gone raises SIGPIPE, and its default action ends the
/// process; libuv writes streams with plain `write`/`writev` (no `MSG_NOSIGNAL`). The signal is
/// directed at the writing thread, so blocking it on the loop's thread makes such a write fail
/// with `EPIPE` instead, which ``StreamConnection`` reports as a write error and answers by
/// closing the connection. The process-wide disposition is left alone.
struct SIGPIPEBlock {
    private var previous = sigset_t()
    private var isBlocking = false

    /// Blocks SIGPIPE on the calling thread (a no-op when it already was).
    static func begin() -> SIGPIPEBlock {
        var block = SIGPIPEBlock()
        var pipe = Self.pipeSet
        if pthread_sigmask(SIG_BLOCK, &pipe, &block.previous) == 0 {
            block.isBlocking = sigismember(&block.previous, SIGPIPE) == 0
        }
        return block
    }

    /// Discards a SIGPIPE that a failed write left pending, then restores the thread's mask.
    func end() {
        guard isBlocking else { return }
        #if canImport(Glibc)
            var pending = sigset_t()
            if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
                var pipe = Self.pipeSet
                var immediately = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipe, nil, &immediately)
            }
        #endif
        var previous = self.previous
        _ = pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    private static var pipeSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        return set
    }
}
