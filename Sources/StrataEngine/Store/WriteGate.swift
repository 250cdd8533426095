import StrataSupport
#if canImport(Glibc)
import Glibc
#endif

/// The store's write lock: one write transaction (or checkpoint step) at a time, granted in
/// arrival order, so a busy writer loop cannot starve a checkpoint.
///
/// A release hands the gate directly to the longest waiter and wakes that thread alone (each
/// waiter sleeps on its own semaphore). A gate whose waiters shared one condition variable woke
/// all of them at every release, to let one through: with four writers on two cores, most of a
/// one-object commit's time went to those wake-ups.
///
/// A task (``acquireSuspending()``) does not block its thread: it suspends until a release frees
/// the gate and then takes it if it is still free. Tasks do not queue behind threads, so a
/// thread of the task's own actor that begins a synchronous write while the task waits does not
/// deadlock (it would wait for a task that needs that thread); the price is that a stream of
/// threads always waiting can keep a task waiting.
final class WriteGate: Sendable {
    /// A thread waiting for the gate.
    private final class Waiter: @unchecked Sendable {
        // Safety: the semaphore is only posted and waited on, which is what it is for.
        private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

        init() { sem_init(semaphore, 0, 0) }

        deinit {
            sem_destroy(semaphore)
            semaphore.deallocate()
        }

        /// Blocks until ``wake()`` is called (or returns at once if it was).
        func wait() {
            while sem_wait(semaphore) != 0 {}  // EINTR: wait again
        }

        func wake() { sem_post(semaphore) }
    }

    private struct State {
        var isHeld = false
        /// Oldest first; `first` is the next owner.
        var waiters: [Waiter] = []
        var head = 0
        /// Tasks suspended until the gate is next freed, by id.
        var suspended: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextSuspendedID: UInt64 = 0

        var isIdle: Bool { !isHeld && head == waiters.count }
    }

    private let state = LockedValueBox(State())

    /// Takes the gate, waiting behind every thread that asked for it before.
    func acquire() {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard state.isHeld else {
                state.isHeld = true
                return nil
            }
            let waiter = Waiter()
            state.waiters.append(waiter)
            return waiter
        }
        // Woken by the release that made this thread the owner (`isHeld` stayed true).
        waiter?.wait()
    }

    /// Takes the gate when it is free; never waits.
    func tryAcquire() -> Bool {
        state.withLockedValue { state in
            guard !state.isHeld else { return false }
            state.isHeld = true
            return true
        }
    }

    /// Takes the gate from a task: suspends (without blocking the thread) until it is free.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the gate is taken.
    func acquireSuspending() async throws {
        while true {
            try Task.checkCancellation()
            if tryAcquire() { return }
            await suspendUntilFreed()
        }
    }

    /// Returns once a release frees the gate (at once if it is free), or the task is cancelled.
    private func suspendUntilFreed() async {
        let id = state.withLockedValue { state -> UInt64 in
            state.nextSuspendedID += 1
            return state.nextSuspendedID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state -> Bool in
                    // Freed already, or cancelled before the continuation existed (the
                    // handler found no entry): do not wait.
                    guard state.isHeld, !Task.isCancelled else { return true }
                    state.suspended[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.suspended.removeValue(forKey: id) }?.resume()
        }
    }

    /// Gives the gate to the longest waiting thread, or frees it when none waits (and wakes the
    /// suspended tasks to try for it).
    func release() {
        var freedFor: [CheckedContinuation<Void, Never>] = []
        let next = state.withLockedValue { state -> Waiter? in
            precondition(state.isHeld, "WriteGate: released while not held")
            guard state.head < state.waiters.count else {
                state.isHeld = false
                state.waiters.removeAll(keepingCapacity: true)
                state.head = 0
                if !state.suspended.isEmpty {
                    freedFor = Array(state.suspended.values)
                    state.suspended.removeAll()
                }
                return nil
            }
            let next = state.waiters[state.head]
            state.head += 1
            // Under constant contention the gate is never idle: drop the woken waiters now and
            // then so the queue does not grow.
            if state.head >= 32 && state.head * 2 >= state.waiters.count {
                state.waiters.removeFirst(state.head)
                state.head = 0
            }
            return next
        }
        guard let next else {
            // Wakes a group-commit leader gathering writers (see `waitUntilIdle(timeout:)`).
            state.broadcast()
            for task in freedFor { task.resume() }
            return
        }
        next.wake()
    }

    /// How many threads wait for the gate.
    var waitingCount: Int { state.withLockedValue { $0.waiters.count - $0.head } }

    /// Returns once no thread holds the gate or waits for it, or after `timeout`.
    ///
    /// - Returns: false when `timeout` passed first.
    @discardableResult
    func waitUntilIdle(timeout: Duration) -> Bool {
        state.wait(until: \.isIdle, timeout: timeout)
    }
}
