import Foundation
import StrataSupport
import StrataTestSupport
import Testing

/// `LockedValueBox`'s timed wait (the group-commit leader's gathering waits with it).
@Suite("LockedValueBox timed wait")
struct LockedValueBoxTests {
    @Test("A timed wait returns at once when ready, false after its timeout, at once for a negative timeout, and true when another thread makes it ready")
    func timedWait() {
        let box = LockedValueBox(0)
        var start = monotonicSeconds()
        #expect(box.wait(until: { $0 == 0 }, timeout: .seconds(30)))
        #expect(monotonicSeconds() - start < 10)

        start = monotonicSeconds()
        #expect(!box.wait(until: { $0 == 1 }, timeout: .milliseconds(50)))
        #expect(monotonicSeconds() - start >= 0.045)

        start = monotonicSeconds()
        #expect(!box.wait(until: { $0 == 1 }, timeout: .milliseconds(-5)))
        #expect(monotonicSeconds() - start < 10, "a negative timeout does not wait (nor spin)")

        let setter = startThreads(1) { _ in
            usleep(20_000)
            box.withLockedValue { $0 = 1 }
            box.broadcast()
        }
        start = monotonicSeconds()
        #expect(box.wait(until: { $0 == 1 }, timeout: .seconds(30)))
        #expect(monotonicSeconds() - start < 20)
        #expect(setter.wait(timeout: .now() + 60) == .success)
    }
}
