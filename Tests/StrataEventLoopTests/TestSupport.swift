import Dispatch
import StrataSupport
@testable import StrataEventLoop
import Testing

/// How long a test waits for something that should happen within milliseconds before it fails.
let patience = DispatchTimeInterval.seconds(30)

extension DispatchSemaphore {
    /// Waits up to ``patience``; returns whether the semaphore was signalled in time.
    func waitPatiently() -> Bool {
        wait(timeout: .now() + patience) == .success
    }
}

/// Sets a flag when it is deinitialised: proves that a closure capturing it was released.
final class DeinitProbe: Sendable {
    let released: LockedValueBox<Bool>

    init(_ released: LockedValueBox<Bool>) {
        self.released = released
    }

    /// Something for a closure to call, so that it captures the probe.
    func touch() {}

    deinit {
        released.withLockedValue { $0 = true }
    }
}

/// Moves a non-Sendable value (a raw libuv handle pointer) into a `@Sendable` closure.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    // Safety: tests hand the value to exactly one other thread at a time and synchronise the
    // hand-over themselves (through the loop's locked queue, or by joining the loop thread).
    let value: Value
}
