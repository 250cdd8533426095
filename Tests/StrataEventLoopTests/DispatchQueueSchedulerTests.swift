import Dispatch
import StrataSupport
import StrataEventLoop
import Testing

@Suite("DispatchQueueScheduler")
struct DispatchQueueSchedulerTests {
    @Test("work runs on the queue, in order, and isOnSchedulerThread is true only there")
    func runsOnItsQueue() throws {
        let queue = DispatchQueue(label: "strata.test.scheduler")
        let marker = DispatchSpecificKey<Int>()
        queue.setSpecific(key: marker, value: 42)
        let scheduler = DispatchQueueScheduler(queue: queue)
        let sameQueue = DispatchQueueScheduler(queue: queue)
        let otherQueue = DispatchQueueScheduler(queue: DispatchQueue(label: "strata.test.other"))
        let seen = LockedValueBox<[(index: Int, onQueue: Bool, onScheduler: Bool, onOther: Bool)]>([])
        let done = DispatchSemaphore(value: 0)

        #expect(!scheduler.isOnSchedulerThread)
        for index in 0..<100 {
            scheduler.schedule {
                let entry = (
                    index, DispatchQueue.getSpecific(key: marker) == 42,
                    scheduler.isOnSchedulerThread && sameQueue.isOnSchedulerThread, otherQueue.isOnSchedulerThread
                )
                seen.withLockedValue { $0.append(entry) }
                if index == 99 { done.signal() }
            }
        }
        try #require(done.waitPatiently())
        let entries = seen.withLockedValue { $0 }
        #expect(entries.map(\.index) == Array(0..<100))
        #expect(entries.allSatisfy { $0.onQueue && $0.onScheduler && !$0.onOther })
    }

    @Test("a queue that targets the scheduler's queue counts as on the scheduler")
    func targetQueue() throws {
        let queue = DispatchQueue(label: "strata.test.target")
        let scheduler = DispatchQueueScheduler(queue: queue)
        let child = DispatchQueue(label: "strata.test.child", target: queue)
        let result = LockedValueBox<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        child.async {
            result.withLockedValue { $0 = scheduler.isOnSchedulerThread }
            done.signal()
        }
        try #require(done.waitPatiently())
        #expect(result.withLockedValue { $0 } == true)
    }
}
