import NIOCore
import NIOPosix

/// Runs `body` with the loops of a new `MultiThreadedEventLoopGroup` of `threads` threads, and
/// shuts the group down afterwards, whether `body` returns or throws.
///
/// `body` must release the Realms it opened on the loops (and invalidate their tokens) before it
/// returns: a loop that has shut down drops the deliveries still addressed to it.
func withEventLoops<Result: Sendable>(
    threads: Int, _ body: ([any EventLoop]) async throws -> Result
) async throws -> Result {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    let loops = Array(group.makeIterator())
    let result: Result
    do {
        result = try await body(loops)
    } catch {
        try await group.shutdownGracefully()
        throw error
    }
    try await group.shutdownGracefully()
    return result
}
