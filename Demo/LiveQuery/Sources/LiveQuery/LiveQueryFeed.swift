import NIOCore
import Strata
import StrataNIO

/// A live query's messages (``LiveQueryMessage`` as JSON text): the initial result, then one
/// message per change set, in commit order, until the consumer stops iterating.
///
/// The Realm's observer runs on the Realm's loop and only encodes and enqueues, so a slow
/// consumer never holds the loop up. The queue is bounded: when `maxPendingMessages` messages
/// wait and another change arrives, the observation stops and the sequence, after the messages
/// already queued, throws ``LiveQueryFeed/Overflow``: the WebSocket route then closes the
/// connection with code 1008 (policy violation), and the client reconnects for a fresh initial
/// result. Dropping messages instead would leave the client's copy silently wrong.
public struct LiveQueryFeed: AsyncSequence, Sendable {
    public typealias Element = String
    public typealias Failure = any Error

    /// The consumer fell `maxPendingMessages` messages behind the Realm.
    public struct Overflow: Error, Equatable, CustomStringConvertible {
        /// The bound that was exceeded.
        public var maxPendingMessages: Int
        public var description: String {
            "the client fell more than \(maxPendingMessages) change sets behind; reconnect for a fresh result"
        }
    }

    private let messages: AsyncThrowingStream<String, any Error>

    public func makeAsyncIterator() -> AsyncThrowingStream<String, any Error>.AsyncIterator {
        messages.makeAsyncIterator()
    }

    /// A feed and the producer that fills its queue, which holds at most `maxPendingMessages`.
    static func makeQueue(maxPendingMessages: Int) -> (LiveQueryFeed, Producer) {
        precondition(maxPendingMessages > 0, "a live query needs room for at least one message")
        let (messages, continuation) = AsyncThrowingStream.makeStream(
            of: String.self, throwing: (any Error).self, bufferingPolicy: .bufferingOldest(maxPendingMessages))
        return (LiveQueryFeed(messages: messages),
                Producer(continuation: continuation, maxPendingMessages: maxPendingMessages))
    }

    /// The producing end of a feed's queue; it never waits for the consumer.
    struct Producer: Sendable {
        let continuation: AsyncThrowingStream<String, any Error>.Continuation
        let maxPendingMessages: Int

        /// Queues `message`; on a full queue, ends the feed with ``Overflow`` instead (after the
        /// messages already queued).
        func push(_ message: String) {
            if case .dropped = continuation.yield(message) {
                continuation.finish(throwing: Overflow(maxPendingMessages: maxPendingMessages))
            }
        }

        /// Ends the feed with `error` (after the messages already queued).
        func fail(_ error: any Error) { continuation.finish(throwing: error) }

        /// Runs `handler` once the feed has ended, whoever ended it.
        func onTermination(_ handler: @escaping @Sendable () -> Void) {
            continuation.onTermination = { _ in handler() }
        }
    }

    /// Registers the observer on `handle`'s loop; it is invalidated on the loop when the
    /// sequence ends (the consumer stops iterating or is cancelled, or the queue overflowed).
    ///
    /// - Throws: ``APIError`` `invalidQuery`.
    static func start(_ query: TodoQuery, on handle: EventLoopRealm, maxPendingMessages: Int) async throws
        -> LiveQueryFeed {
        let (feed, producer) = makeQueue(maxPendingMessages: maxPendingMessages)
        let loop = handle.eventLoop
        try await handle.perform { realm in
            let results = try query.results(in: realm)
            let token = results.observe { change in
                switch change {
                case .initial(let result):
                    producer.push(LiveQueryMessage(initial: result).json())
                case .update(let result, let deletions, let insertions, let modifications):
                    producer.push(LiveQueryMessage(update: result, deletions: deletions, insertions: insertions,
                                                   modifications: modifications).json())
                case .error(let error):
                    producer.fail(error)
                }
            }
            let observation = NIOLoopBound(token, eventLoop: loop)
            producer.onTermination { loop.execute { observation.value.invalidate() } }
        }
        return feed
    }
}
