import Foundation
@testable import Strata
import StrataEventLoop
import StrataTestSupport

/// Runs test code on a `LibUVEventLoop` thread, where Realms deliver notifications, and waits for
/// them from the test's own thread.
final class LoopHarness: @unchecked Sendable {
    // Safety: `events` is guarded by `condition`; everything else is used on the loop thread only.
    let loop: LibUVEventLoop
    private let condition = NSCondition()
    private var events: [String] = []

    init() throws {
        loop = try LibUVEventLoop.startThread(name: "test-loop")
    }

    /// Stops the loop. The last reference may go away on the loop thread itself (a callback
    /// that captured the harness, released when its token is invalidated mid-delivery); there
    /// the loop can only be asked to stop, not waited for.
    deinit {
        if loop.inEventLoop {
            loop.shutdown()
        } else {
            loop.shutdownAndWait()
        }
    }

    /// Runs `body` on the loop thread and returns its result.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        try withoutActuallyEscaping(body) { body in
            let box = UncheckedBox<Result<T, any Error>?>(nil)
            let bodyBox = UncheckedBox<(() throws -> T)?>(body)
            let done = DispatchSemaphore(value: 0)
            loop.execute {
                box.value = Result { try bodyBox.value!() }
                // Drop the closure before the caller's `withoutActuallyEscaping` ends.
                bodyBox.value = nil
                done.signal()
            }
            done.wait()
            // The body threw only what `body` throws.
            return try box.value!.get()
        }
    }

    /// Records an event (call from the loop thread, in callbacks).
    func record(_ event: String) {
        condition.lock()
        events.append(event)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until at least `count` events were recorded (or `timeout`), and returns them all.
    @discardableResult
    func waitForEvents(_ count: Int, timeout: TimeInterval = 30) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while events.count < count, condition.wait(until: deadline) {}
        return events
    }

    /// Waits like ``waitForEvents(_:timeout:)`` without blocking a thread of the cooperative pool
    /// (async tests that block it can starve the tasks they wait for: the pool has one thread
    /// per core).
    func events(atLeast count: Int, timeout: Duration = .seconds(60)) async -> [String] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = currentEvents()
            if current.count >= count { return current }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return currentEvents()
    }

    private func currentEvents() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        return events
    }

    /// The events so far, after letting the loop drain what is queued (twice: a delivery may
    /// schedule another).
    func settledEvents() -> [String] {
        for _ in 0..<3 {
            Thread.sleep(forTimeInterval: 0.05)
            run {}
        }
        return currentEvents()
    }
}
