@testable import StrataEventLoop
import Testing

@Suite("WorkQueue state machine")
struct WorkQueueTests {
    @Test("only the first closure of an empty queue asks for a wake-up")
    func wakeOnlyWhenEmpty() {
        var queue = WorkQueue()
        #expect(queue.enqueue {} == .wakeLoop)
        #expect(queue.enqueue {} == .none)
        #expect(queue.enqueue {} == .none)
        let batch = queue.takeBatch()
        #expect(batch.items.count == 3)
        #expect(!batch.isFinal)
        #expect(queue.enqueue {} == .wakeLoop)
        #expect(queue.drainCount == 1)
    }

    @Test("shutdown rejects new work, wakes once, and marks exactly one batch final")
    func shutdownSequence() {
        var queue = WorkQueue()
        #expect(queue.enqueue {} == .wakeLoop)
        let first = queue.requestShutdown()
        let second = queue.requestShutdown()
        #expect(first)
        #expect(!second)
        #expect(!queue.isAccepting)
        #expect(queue.enqueue {} == .reject)
        let final = queue.takeBatch()
        #expect(final.items.count == 1)
        #expect(final.isFinal)
        let after = queue.takeBatch()
        #expect(after.items.isEmpty)
        #expect(!after.isFinal)
    }
}
