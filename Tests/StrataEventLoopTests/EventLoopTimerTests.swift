import Dispatch
import StrataSupport
@testable import StrataEventLoop
import Testing

@Suite("LibUVEventLoop timers")
struct EventLoopTimerTests {
    @Test("timers fire in deadline order, ties in the order they were scheduled")
    func fireInOrder() throws {
        let loop = try LibUVEventLoop.startThread(name: "timer-order")
        defer { loop.shutdownAndWait() }
        let fired = LockedValueBox<[String]>([])
        let done = DispatchSemaphore(value: 0)

        // Timeline (on the loop, all scheduled in one closure):
        // 0 ms: "0"   10 ms: "10a", "10b"   20 ms: "20"   30 ms: "30" → signal(done)
        loop.execute {
            for (label, milliseconds) in [("30", 30), ("10a", 10), ("20", 20), ("0", 0), ("10b", 10)] {
                loop.scheduleTimer(after: .milliseconds(milliseconds)) {
                    loop.preconditionInEventLoop()
                    fired.withLockedValue { $0.append(label) }
                    if label == "30" { done.signal() }
                }
            }
        }
        try #require(done.waitPatiently())
        #expect(fired.withLockedValue { $0 } == ["0", "10a", "10b", "20", "30"])
    }

    @Test("a repeating timer repeats until it is cancelled, then is closed and released")
    func repeatUntilCancelled() throws {
        let loop = try LibUVEventLoop.startThread(name: "timer-repeat")
        defer { loop.shutdownAndWait() }
        let fires = LockedValueBox(0)
        let released = LockedValueBox(false)
        let outcome = LockedValueBox<(fires: Int, closed: Bool)?>(nil)
        let done = DispatchSemaphore(value: 0)

        // Timeline (on the loop):
        // every 1 ms: fires += 1; on the 5th: cancel() itself, schedule `check` in 30 ms
        // +30 ms, `check`: fires is still 5, the timer's close callback ran → signal(done)
        loop.execute {
            let probe = DeinitProbe(released)
            var ticker: TimerHandle?
            ticker = loop.scheduleTimer(after: .milliseconds(1), repeating: .milliseconds(1)) {
                probe.touch()
                let count = fires.withLockedValue {
                    $0 += 1; return $0
                }
                guard count == 5, let timer = ticker else { return }
                timer.cancel()
                ticker = nil  // break the closure → handle cycle
                loop.scheduleTimer(after: .milliseconds(30)) {
                    outcome.withLockedValue { $0 = (fires.withLockedValue { $0 }, timer.isClosed) }
                    done.signal()
                }
            }
        }
        try #require(done.waitPatiently())
        let result = try #require(outcome.withLockedValue { $0 })
        #expect(result.fires == 5)
        #expect(result.closed)
        #expect(released.withLockedValue { $0 })
    }

    @Test("schedule(after:) from another thread fires on the loop, even when the handle is dropped")
    func scheduleFromAnotherThread() throws {
        let loop = try LibUVEventLoop.startThread(name: "timer-hop")
        defer { loop.shutdownAndWait() }
        let onLoop = LockedValueBox<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.schedule(after: .milliseconds(2)) {
            onLoop.withLockedValue { $0 = loop.inEventLoop }
            done.signal()
        }
        try #require(done.waitPatiently())
        #expect(onLoop.withLockedValue { $0 } == true)
    }

    @Test("cancel() from another thread stops a timer before it fires and releases its closure")
    func cancelFromAnotherThread() throws {
        let loop = try LibUVEventLoop.startThread(name: "timer-cancel")
        let fired = LockedValueBox(false)
        let released = LockedValueBox(false)
        let probe = DeinitProbe(released)
        let timer = loop.schedule(after: .milliseconds(20)) {
            probe.touch()
            fired.withLockedValue { $0 = true }
        }
        timer.cancel()  // hops to the loop, after the hop that starts the timer (FIFO)
        let closed = LockedValueBox<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)

        // Timeline (on the loop): start(timer) ─ close(timer) ─ [close callback] ─ +40 ms check
        loop.execute {
            loop.scheduleTimer(after: .milliseconds(40)) {
                closed.withLockedValue { $0 = timer.isClosed }
                done.signal()
            }
        }
        try #require(done.waitPatiently())
        loop.shutdownAndWait()
        #expect(closed.withLockedValue { $0 } == true)
        #expect(!fired.withLockedValue { $0 })
        _ = consume probe
        #expect(released.withLockedValue { $0 })
    }

    @Test(
        "durations round up to whole libuv milliseconds",
        arguments: [
            (Duration.zero, UInt64(0)), (.seconds(-1), 0), (.nanoseconds(1), 1), (.milliseconds(1), 1),
            (.microseconds(1500), 2), (.seconds(2), 2000), (.seconds(Int64.max), .max),
        ] as [(Duration, UInt64)]
    )
    func milliseconds(duration: Duration, expected: UInt64) {
        #expect(LibUVEventLoop.milliseconds(duration) == expected)
    }
}
