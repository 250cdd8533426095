import CLibUV
import Dispatch
import StrataSupport
@testable import StrataEventLoop
import Testing

@Suite("LibUVEventLoop shutdown")
struct EventLoopShutdownTests {
    @Test("shutdown from another thread closes every handle and uv_loop_close returns 0")
    func shutdownClosesEverything() throws {
        let loop = try LibUVEventLoop()
        let runner = try LoopThread.spawn(name: "run-loop") { loop.run() }
        let hourFired = LockedValueBox(false)
        let oneShotReleased = LockedValueBox(false)
        let repeatingReleased = LockedValueBox(false)
        let ticks = DispatchSemaphore(value: 0)
        // A handle opened behind LibUVEventLoop's back: only the `uv_walk` pass can close it.
        let foreign = UnsafeTransfer(value: UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1))
        defer { foreign.value.deallocate() }

        // Timeline:
        // loop:  set up a 1-hour timer, a 1 ms repeating timer, a foreign 1-hour timer ─ ticks…
        // test:  wait(first tick) ─ shutdown() ─ join(runner) ─ check
        loop.execute {
            let hourProbe = DeinitProbe(oneShotReleased)
            loop.scheduleTimer(after: .seconds(3600)) {
                hourProbe.touch()
                hourFired.withLockedValue { $0 = true }
            }
            let tickProbe = DeinitProbe(repeatingReleased)
            loop.scheduleTimer(after: .zero, repeating: .milliseconds(1)) {
                tickProbe.touch()
                ticks.signal()
            }
            #expect(uv_timer_init(loop.uvLoop, foreign.value) == 0)
            #expect(uv_timer_start(foreign.value, { _ in }, 3_600_000, 0) == 0)
        }
        try #require(ticks.waitPatiently())
        loop.shutdown()
        runner.join()

        #expect(loop.lastCloseResult == 0)
        #expect(!hourFired.withLockedValue { $0 })
        #expect(oneShotReleased.withLockedValue { $0 })
        #expect(repeatingReleased.withLockedValue { $0 })
        #expect(uv_is_closing(uvHandle(foreign.value)) != 0)
    }

    @Test("shutdown runs the work queued before it; afterwards execute returns false and drops the work")
    func queuedWorkRunsLateWorkIsDropped() throws {
        let loop = try LibUVEventLoop.startThread(name: "drain-loop")
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ran = LockedValueBox<[Int]>([])
        let lateRan = LockedValueBox(false)
        let lateReleased = LockedValueBox(false)

        // Timeline:
        // loop:  gate: signal(entered) ─ wait(release) ······················ runs 0..<100 ─ closes handles
        // test:  wait(entered) ─ execute 0..<100 ─ shutdown() ─ execute(late) → false
        //        ─ signal(release) ─ join
        loop.execute {
            entered.signal()
            release.wait()
        }
        try #require(entered.waitPatiently())
        for index in 0..<100 {
            #expect(loop.execute { ran.withLockedValue { $0.append(index) } })
        }
        loop.shutdown()
        loop.shutdown()  // idempotent
        do {
            let probe = DeinitProbe(lateReleased)
            let accepted = loop.execute {
                probe.touch()
                lateRan.withLockedValue { $0 = true }
            }
            #expect(!accepted)
        }
        #expect(lateReleased.withLockedValue { $0 }, "rejected work is released at once")
        loop.schedule(after: .zero) { lateRan.withLockedValue { $0 = true } }
        release.signal()
        loop.shutdownAndWait()
        loop.shutdownAndWait()  // returns at once on a closed loop

        #expect(ran.withLockedValue { $0 } == Array(0..<100))
        #expect(!lateRan.withLockedValue { $0 })
        #expect(loop.lastCloseResult == 0)
        #expect(!loop.execute {})
    }

    @Test("shutdownAndWait from several threads at once joins the loop thread once and all return")
    func concurrentShutdownAndWait() throws {
        let loop = try LibUVEventLoop.startThread(name: "multi-stop")
        let waiters = try (0..<4).map { index in
            try LoopThread.spawn(name: "stopper-\(index)") { loop.shutdownAndWait() }
        }
        for thread in waiters { thread.join() }
        #expect(loop.lastCloseResult == 0)
    }

    @Test("a startThread loop stopped with shutdown() alone detaches its thread when released")
    func shutdownWithoutJoin() throws {
        let loop = try LibUVEventLoop.startThread(name: "no-join")
        loop.shutdown()
        // Wait for the close without joining; the loop's deinit (on this thread or the loop's
        // own, whichever lets go last) detaches the thread, so ThreadSanitizer sees no leak.
        loop.shared.wait(until: { $0.phase == .closed }, then: { _ in })
        #expect(loop.lastCloseResult == 0)
    }

    @Test("a loop that never ran deinitialises cleanly and drops its queued work")
    func neverRun() throws {
        let ran = LockedValueBox(false)
        let released = LockedValueBox(false)
        do {
            let loop = try LibUVEventLoop()
            let probe = DeinitProbe(released)
            #expect(
                loop.execute {
                    probe.touch()
                    ran.withLockedValue { $0 = true }
                })
            loop.shutdown()
        }
        #expect(!ran.withLockedValue { $0 })
        #expect(released.withLockedValue { $0 })
    }

    @Test("loop-confined calls off the loop thread are programmer errors")
    func preconditions() async {
        await #expect(processExitsWith: .failure) {
            let loop = try LibUVEventLoop()
            loop.scheduleTimer(after: .zero) {}
        }
        await #expect(processExitsWith: .failure) {
            let loop = try LibUVEventLoop()
            loop.preconditionInEventLoop()
        }
        await #expect(processExitsWith: .failure) {
            let loop = try LibUVEventLoop()
            loop.execute { loop.shutdownAndWait() }
            loop.run()
        }
    }
}
