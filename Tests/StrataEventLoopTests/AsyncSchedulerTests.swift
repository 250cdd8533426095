import StrataSupport
@testable import StrataEventLoop
import Testing

@Suite("AsyncScheduler")
struct AsyncSchedulerTests {
    @Test("work runs inside the consuming task, in order, and isOnSchedulerThread is true only there")
    func runsInsideTask() async throws {
        let scheduler = AsyncScheduler()
        let consumer = Task { await scheduler.run() }
        #expect(!scheduler.isOnSchedulerThread)

        let (inTask, onScheduler) = await withCheckedContinuation { continuation in
            scheduler.schedule {
                let inTask = withUnsafeCurrentTask { $0 != nil }
                continuation.resume(returning: (inTask, scheduler.isOnSchedulerThread))
            }
        }
        #expect(inTask)
        #expect(onScheduler)

        // From a plain thread: 100 closures, in order.
        let order = LockedValueBox<[Int]>([])
        let lastRan = AsyncStream.makeStream(of: Void.self)
        let producer = try LoopThread.spawn(name: "async-producer") {
            for index in 0..<100 {
                scheduler.schedule {
                    order.withLockedValue { $0.append(index) }
                    if index == 99 { lastRan.continuation.finish() }
                }
            }
        }
        for await _ in lastRan.stream {}
        producer.join()  // at most finishing its last schedule() call
        #expect(order.withLockedValue { $0 } == Array(0..<100))

        scheduler.finish()
        await consumer.value

        let ranLate = LockedValueBox(false)
        scheduler.schedule { ranLate.withLockedValue { $0 = true } }
        #expect(!ranLate.withLockedValue { $0 })
    }

    @Test("a task started from a scheduled closure is not on the scheduler")
    func childTaskIsNotOnScheduler() async {
        let scheduler = AsyncScheduler()
        let consumer = Task { await scheduler.run() }
        let childSees = await withCheckedContinuation { continuation in
            scheduler.schedule {
                Task { continuation.resume(returning: scheduler.isOnSchedulerThread) }
            }
        }
        #expect(!childSees)
        scheduler.finish()
        await consumer.value
    }
}
