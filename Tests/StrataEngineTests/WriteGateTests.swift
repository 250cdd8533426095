import Dispatch
import Foundation
import StrataSupport
import StrataTestSupport
import Testing
@testable import StrataEngine

/// Counts with no lock of its own: only the holder of the gate under test touches it, so a gate
/// that let two threads in at once shows up as a lost increment (and, under ThreadSanitizer, as
/// a race).
private final class UnguardedCounter: @unchecked Sendable {
    var value = 0
}

/// The store's write lock: one holder at a time, granted in arrival order, and the idle wait a
/// group-commit leader gathers writers with.
@Suite("WriteGate")
struct WriteGateTests {
    @Test("Threads contending for the gate never hold it together")
    func mutualExclusion() {
        let gate = WriteGate()
        let counter = UnguardedCounter()
        let threads = 6, rounds = 2_000
        let finished = runOnThreads(threads) { _ in
            for _ in 0..<rounds {
                gate.acquire()
                counter.value += 1
                gate.release()
            }
        }
        #expect(finished)
        gate.acquire()
        #expect(counter.value == threads * rounds)
        gate.release()
        #expect(gate.waitingCount == 0)
    }

    @Test("Threads and tasks contending for the gate never hold it together; tasks wait by suspending")
    func mutualExclusionWithTasks() async {
        let gate = WriteGate()
        let counter = UnguardedCounter()
        let threads = 2, tasks = 4, rounds = 500
        let threadsDone = startThreads(threads) { _ in
            for _ in 0..<rounds {
                gate.acquire()
                counter.value += 1
                gate.release()
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<rounds {
                        try! await gate.acquireSuspending()
                        counter.value += 1
                        gate.release()
                    }
                }
            }
        }
        #expect(threadsDone.wait(timeout: .now() + 300) == .success)
        #expect(gate.tryAcquire())
        #expect(counter.value == (threads + tasks) * rounds)
        #expect(!gate.tryAcquire(), "held")
        gate.release()
    }

    @Test("A task cancelled while it waits for the gate throws CancellationError and takes nothing")
    func cancelledTaskTakesNothing() async throws {
        let gate = WriteGate()
        gate.acquire()
        let waiter = Task { try await gate.acquireSuspending() }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        gate.release()
        #expect(gate.tryAcquire(), "the cancelled task did not take the freed gate")
        gate.release()
    }

    @Test("The gate goes to waiters in the order they arrived")
    func arrivalOrder() {
        let gate = WriteGate()
        let order = LockedValueBox<[Int]>([])
        gate.acquire()
        let waiters = 5
        let threads = startThreads(waiters) { index in
            // Each waiter queues only once the one before it is queued.
            _ = waitUntil(timeout: 60) { gate.waitingCount == index }
            gate.acquire()
            order.withLockedValue { $0.append(index) }
            gate.release()
        }
        #expect(waitUntil(timeout: 60) { gate.waitingCount == waiters })
        gate.release()
        #expect(threads.wait(timeout: .now() + 60) == .success)
        #expect(order.withLockedValue { $0 } == Array(0..<waiters))
    }

    @Test("Waiting for an idle gate returns at once when idle, times out while held, and returns when released")
    func idleWait() {
        let gate = WriteGate()
        var start = monotonicSeconds()
        gate.waitUntilIdle(timeout: .seconds(10))
        #expect(monotonicSeconds() - start < 5, "an idle gate needs no wait")

        gate.acquire()
        start = monotonicSeconds()
        gate.waitUntilIdle(timeout: .milliseconds(50))
        #expect(monotonicSeconds() - start >= 0.045, "held: the wait runs to its timeout")

        // The gate is handed to another thread, which holds it a moment and frees it.
        let handedOver = startThreads(1) { _ in
            gate.acquire()
            usleep(20_000)
            gate.release()
        }
        #expect(waitUntil(timeout: 60) { gate.waitingCount == 1 })
        gate.release()
        start = monotonicSeconds()
        gate.waitUntilIdle(timeout: .seconds(30))
        #expect(monotonicSeconds() - start < 20, "the last release ends the wait")
        #expect(handedOver.wait(timeout: .now() + 60) == .success)
        gate.acquire()
        gate.release()
    }
}
