import Foundation
import Strata
import StrataTestSupport
import Testing

/// An application's own scheduler (not one of Strata's): work runs on a serial queue it owns, and
/// it counts the work Strata hands it.
private struct CountingScheduler: StrataScheduler {
    let queue = DispatchQueue(label: "custom-scheduler")
    private let key = DispatchSpecificKey<Bool>()
    let scheduled = LockedBox(0)

    init() { queue.setSpecific(key: key, value: true) }

    func schedule(_ work: @escaping @Sendable () -> Void) {
        scheduled.mutate { $0 += 1 }
        queue.async(execute: work)
    }

    var isOnSchedulerThread: Bool { DispatchQueue.getSpecific(key: key) == true }
}

/// The `StrataScheduler` seam is public: `Realm(configuration:scheduler:)` confines a Realm to an
/// application's scheduler and delivers its notifications and asynchronous writes through it.
@Suite("Realm on an application's scheduler")
struct CustomSchedulerTests {
    /// A custom scheduler, a delivery log, and the Realm opened on the scheduler (kept alive
    /// between the blocks the test runs there).
    private final class Fixture: @unchecked Sendable {
        // Safety: `realm` and `token` are only touched in blocks running on the scheduler's queue.
        let configuration: Realm.Configuration
        let scheduler = CountingScheduler()
        let log = DeliveryLog()
        var realm: Realm?
        var token: NotificationToken?

        init(_ name: String) { configuration = confinementConfiguration(name) }

        /// Opens the Realm on the scheduler's queue and runs `body` there with it.
        func open(_ body: (Realm) -> Void) throws {
            try scheduler.queue.sync {
                let realm = try Realm(configuration: configuration, scheduler: scheduler)
                self.realm = realm
                body(realm)
            }
        }

        /// Releases the Realm (and its token) on the scheduler's queue.
        func close() { scheduler.queue.sync { token = nil; realm = nil } }
    }

    @Test("notifications of a Realm opened with a custom scheduler are delivered through that scheduler")
    func notificationsThroughScheduler() throws {
        let fixture = Fixture("custom-scheduler")
        let (scheduler, log) = (fixture.scheduler, fixture.log)
        try fixture.open { realm in
            fixture.token = realm.objects(NoteDog.self).observe { change in
                precondition(scheduler.isOnSchedulerThread)
                switch change {
                case .initial(let dogs): log.record("initial \(dogs.count)")
                case .update(let dogs, _, let insertions, _): log.record("update \(dogs.count) \(insertions)")
                case .error(let error): log.record("error \(error)")
                }
            }
        }
        #expect(log.next())
        let writer = try Realm(configuration: fixture.configuration)
        try writer.write { writer.add(NoteDog(value: ["id": 1, "name": "Rex"])) }
        #expect(log.next())
        #expect(log.all == ["initial 0", "update 1 [0]"])
        #expect(scheduler.scheduled.mutate { $0 } >= 2)
        scheduler.queue.sync { #expect(fixture.realm?.objects(NoteDog.self).count == 1) }
        fixture.close()
    }

    @Test("writeAsync on a Realm with a custom scheduler commits and completes through the scheduler")
    func asyncWriteThroughScheduler() throws {
        let fixture = Fixture("custom-scheduler-write")
        let (scheduler, log) = (fixture.scheduler, fixture.log)
        try fixture.open { realm in
            realm.writeAsync {
                realm.add(NoteDog(value: ["id": 7, "name": "Fido"]))
            } onComplete: { error in
                log.record("completed \(scheduler.isOnSchedulerThread) \(error == nil)")
            }
        }
        #expect(log.next())
        #expect(log.all == ["completed true true"])
        let reader = try Realm(configuration: fixture.configuration)
        #expect(reader.objects(NoteDog.self).first?.name == "Fido")
        fixture.close()
    }
}
