import NIOConcurrencyHelpers
@testable import LiveQuery
import Testing

extension LiveQueryTests {
    @Suite("The live-query feed's bounded queue", .timeLimit(.minutes(2)))
    struct LiveQueryFeedTests {
        @Test("a consumer that falls behind gets the queued messages, then Overflow; pushing never waits for it")
        func overflow() async throws {
            let (feed, producer) = LiveQueryFeed.makeQueue(maxPendingMessages: 3)
            let ended = Ended()
            producer.onTermination { ended.set() }
            for index in 0..<5 { producer.push("message \(index)") }   // returns at once, nobody reading
            #expect(ended.isSet)
            var received: [String] = []
            await #expect(throws: LiveQueryFeed.Overflow(maxPendingMessages: 3)) {
                for try await message in feed { received.append(message) }
            }
            #expect(received == ["message 0", "message 1", "message 2"])
        }

        @Test("a consumer that keeps up gets every message, in order, and ending the feed runs its termination")
        func keepsUp() async throws {
            let (feed, producer) = LiveQueryFeed.makeQueue(maxPendingMessages: 2)
            let ended = Ended()
            producer.onTermination { ended.set() }
            var iterator = feed.makeAsyncIterator()
            for index in 0..<5 {
                producer.push("message \(index)")
                #expect(try await iterator.next() == "message \(index)")
            }
            producer.fail(APIError(.invalidQuery, "gone"))
            await #expect(throws: APIError(.invalidQuery, "gone")) { _ = try await iterator.next() }
            #expect(ended.isSet)
        }
    }
}

/// A flag the feed's termination handler sets.
private final class Ended: Sendable {
    private let flag = NIOLockedValueBox(false)
    func set() { flag.withLockedValue { $0 = true } }
    var isSet: Bool { flag.withLockedValue { $0 } }
}
