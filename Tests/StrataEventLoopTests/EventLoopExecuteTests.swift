import Dispatch
import StrataSupport
@testable import StrataEventLoop
import Testing

@Suite("LibUVEventLoop.execute")
struct EventLoopExecuteTests {
    @Test("closures from 8 threads × 1000 each run exactly once, on the loop thread, FIFO per producer")
    func manyProducers() throws {
        let producerCount = 8
        let perProducer = 1000
        let loop = try LibUVEventLoop.startThread(name: "exec-loop")
        defer { loop.shutdownAndWait() }
        let log = LockedValueBox<[(producer: Int, index: Int, onLoop: Bool)]>([])
        let start = DispatchSemaphore(value: 0)

        // Timeline:
        // producers:  wait(start) ─ execute ×1000 ─ exit
        // test:       signal(start)×8 ─ join all ─ execute(done) ─ wait(done)
        // loop:       drains batches as they come ─ runs `done` last (queued after every join)
        let producers = try (0..<producerCount).map { producer in
            try LoopThread.spawn(name: "producer-\(producer)") {
                start.wait()
                for index in 0..<perProducer {
                    loop.execute {
                        let onLoop = loop.inEventLoop
                        log.withLockedValue { $0.append((producer, index, onLoop)) }
                    }
                }
            }
        }
        for _ in producers { start.signal() }
        for thread in producers { thread.join() }
        let done = DispatchSemaphore(value: 0)
        #expect(loop.execute { done.signal() })
        try #require(done.waitPatiently())

        let entries = log.withLockedValue { $0 }
        #expect(entries.count == producerCount * perProducer)
        #expect(entries.allSatisfy { $0.onLoop })
        for producer in 0..<producerCount {
            let indices = entries.filter { $0.producer == producer }.map(\.index)
            #expect(indices == Array(0..<perProducer), "producer \(producer) out of order or incomplete")
        }
        let wakeUps = loop.wakeUpCount
        print("execute: \(entries.count) closures, \(wakeUps) wake-ups")
        #expect(wakeUps < entries.count)
    }

    @Test("wake-ups coalesce: closures queued while the loop is busy cost one wake-up")
    func wakeUpsCoalesce() throws {
        let loop = try LibUVEventLoop.startThread(name: "coalesce-loop")
        defer { loop.shutdownAndWait() }
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let count = LockedValueBox(0)
        let items = 4000

        // Timeline:
        // test:  execute(gate) ─ wait(entered) ─ 4 producers × 1000 execute, joined ─ execute(done)
        //        ─ signal(release) ─ wait(done)
        // loop:  wake-up 1, gate: signal(entered) ─ wait(release), returns after signal(release)
        //        wake-up 2: the 4000 closures and `done`, in one drain
        loop.execute {
            entered.signal()
            release.wait()
        }
        try #require(entered.waitPatiently())
        let producers = try (0..<4).map { producer in
            try LoopThread.spawn(name: "burst-\(producer)") {
                for _ in 0..<(items / 4) {
                    loop.execute { count.withLockedValue { $0 += 1 } }
                }
            }
        }
        for thread in producers { thread.join() }
        loop.execute { done.signal() }
        release.signal()
        try #require(done.waitPatiently())

        let wakeUps = loop.wakeUpCount
        print("coalescing: \(items) closures, \(wakeUps) wake-ups")
        #expect(count.withLockedValue { $0 } == items)
        #expect(wakeUps < items)
        #expect(wakeUps <= 3)
    }

    @Test("a closure queued from the loop thread runs on the next drain, not re-entrantly")
    func noReentrancy() throws {
        let loop = try LibUVEventLoop.startThread(name: "reentry-loop")
        defer { loop.shutdownAndWait() }
        let order = LockedValueBox<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let drains = LockedValueBox<[Int]>([])

        loop.execute {
            order.withLockedValue { $0.append("outer begins") }
            drains.withLockedValue { $0.append(loop.wakeUpCount) }
            loop.execute {
                order.withLockedValue { $0.append("inner") }
                drains.withLockedValue { $0.append(loop.wakeUpCount) }
                done.signal()
            }
            order.withLockedValue { $0.append("outer ends") }
        }
        try #require(done.waitPatiently())
        #expect(order.withLockedValue { $0 } == ["outer begins", "outer ends", "inner"])
        let (outer, inner) = drains.withLockedValue { ($0[0], $0[1]) }
        #expect(inner > outer)
    }

    @Test("inEventLoop is true only on the loop thread, and LibUVEventLoop serves as a StrataScheduler")
    func confinement() throws {
        let loop = try LibUVEventLoop.startThread(name: "confine-loop")
        defer { loop.shutdownAndWait() }
        #expect(!loop.inEventLoop)
        let other = try LibUVEventLoop()
        let seen = LockedValueBox<(Bool, Bool, Bool)?>(nil)
        let done = DispatchSemaphore(value: 0)

        func hop(on scheduler: some StrataScheduler) {
            scheduler.schedule {
                seen.withLockedValue { $0 = (loop.inEventLoop, scheduler.isOnSchedulerThread, other.inEventLoop) }
                done.signal()
            }
        }
        hop(on: loop)
        try #require(done.waitPatiently())
        let (inLoop, onScheduler, inOther) = try #require(seen.withLockedValue { $0 })
        #expect(inLoop)
        #expect(onScheduler)
        #expect(!inOther)
        #expect(!loop.isOnSchedulerThread)
    }

    @Test("run() on the calling thread returns after a closure on the loop calls shutdown()")
    func runOnCallingThread() throws {
        let loop = try LibUVEventLoop()
        let ran = LockedValueBox(false)
        loop.execute {
            loop.scheduleTimer(after: .milliseconds(1)) {
                ran.withLockedValue { $0 = true }
                loop.shutdown()
            }
        }
        loop.run()
        #expect(ran.withLockedValue { $0 })
        #expect(loop.lastCloseResult == 0)
        #expect(!loop.inEventLoop)
    }
}
