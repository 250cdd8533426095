import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Records what an observer saw and lets the test wait for each delivery.
final class DeliveryLog: Sendable {
    private let entries = LockedBox<[String]>([])
    private let arrived = DispatchSemaphore(value: 0)

    /// Appends `entry` and wakes one waiter.
    func record(_ entry: String) {
        entries.mutate { $0.append(entry) }
        arrived.signal()
    }

    /// Waits (at most 10 s) for the next delivery.
    func next() -> Bool { arrived.wait(timeout: .now() + 10) == .success }

    var all: [String] { entries.mutate { $0 } }
}

/// A small lock-protected value for test logs.
final class LockedBox<Value>: @unchecked Sendable {
    // Safety: `value` is only touched under `lock`.
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func mutate<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Realm Swift's `observe(on: queue)`: the block runs on the given serial queue with the
/// collection or object resolved in a Realm confined to that queue.
@Suite("observe(on: queue)")
struct ObserveOnQueueTests {
    @Test("Results.observe(on:) delivers .initial and .update on the queue with results usable there; invalidate stops it")
    func resultsOnQueue() throws {
        let configuration = confinementConfiguration("results-on-queue")
        let realm = try Realm(configuration: configuration)   // a plain thread: no scheduler of its own
        let queue = DispatchQueue(label: "results-observer")
        let log = DeliveryLog()
        let other = DeliveryLog()
        let token = realm.objects(NoteDog.self).observe(keyPaths: ["name"], on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let dogs): log.record("initial \(dogs.count)")
            case .update(let dogs, let deletions, let insertions, let modifications):
                log.record("update \(dogs.map(\.name)) \(deletions) \(insertions) \(modifications)")
            case .error(let error): log.record("error \(error)")
            }
        }
        let otherToken = realm.objects(NoteDog.self).observe(on: queue) { change in
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _): other.record("\(dogs.count)")
            case .error(let error): other.record("error \(error)")
            }
        }
        #expect(log.next() && other.next())
        try realm.write { realm.add(NoteDog(value: ["id": 1, "name": "Rex"])) }
        #expect(log.next())
        #expect(log.all == ["initial 0", "update [\"Rex\"] [] [0] []"])
        #expect(other.next())

        token.invalidate()
        #expect(token.isInvalidated)
        try realm.write { realm.add(NoteDog(value: ["id": 2, "name": "Fido"])) }
        #expect(other.next())   // the same queue's Realm delivered this version
        queue.sync {}
        #expect(other.all == ["0", "1", "2"])
        #expect(log.all.count == 2, "no delivery after invalidate: \(log.all)")
        otherToken.invalidate()
    }

    @Test("Object, List and Map observe(on:) deliver on the queue with values resolved there")
    func objectListMapOnQueue() throws {
        let configuration = confinementConfiguration("object-on-queue")
        let realm = try Realm(configuration: configuration)
        let person = NotePerson(value: ["id": 1, "name": "Ann"])
        try realm.write { realm.add(person) }
        let queue = DispatchQueue(label: "object-observer")
        let log = DeliveryLog()
        let objectToken = person.observe(on: queue) { (change: ObjectChange<NotePerson>) in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .change(let person, let properties) = change {
                log.record("object \(person.name) \(properties.map(\.name))")
            }
        }
        let listToken = person.dogs.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let dogs): log.record("list initial \(dogs.count)")
            case .update(let dogs, _, let insertions, _): log.record("list \(dogs.count) \(insertions)")
            case .error(let error): log.record("error \(error)")
            }
        }
        let mapToken = person.pets.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let pets): log.record("map initial \(pets.count)")
            case .update(let pets, _, let insertions, _): log.record("map \(pets.count) \(insertions)")
            case .error(let error): log.record("error \(error)")
            }
        }
        #expect(log.next() && log.next())   // the two initial deliveries
        // The object observer is registered on the queue asynchronously: wait until it is.
        queue.sync {}
        try realm.write {
            person.name = "Bea"
            person.dogs.append(NoteDog(value: ["id": 7]))
            person.pets["rex"] = NoteDog(value: ["id": 8])
        }
        #expect(log.next() && log.next() && log.next())
        #expect(Set(log.all) == ["list initial 0", "map initial 0", "object Bea [\"name\", \"dogs\", \"pets\"]",
                                 "list 1 [0]", "map 1 [\"rex\"]"], "\(log.all)")
        for token in [objectToken, listToken, mapToken] { token.invalidate() }
    }

    @Test("releasing the token of observe(on:) stops the observer")
    func releasingTokenStops() throws {
        let configuration = confinementConfiguration("release-on-queue")
        let realm = try Realm(configuration: configuration)
        let queue = DispatchQueue(label: "release-observer")
        let log = DeliveryLog()
        var token: NotificationToken? = realm.objects(NoteDog.self).observe(on: queue) { _ in log.record("delivery") }
        #expect(log.next())
        _ = token
        token = nil
        let other = DeliveryLog()
        let otherToken = realm.objects(NoteDog.self).observe(on: queue) { change in
            if case .update(let dogs, _, _, _) = change { other.record("update \(dogs.count)") }
            if case .initial(let dogs) = change { other.record("initial \(dogs.count)") }
        }
        #expect(other.next())
        try realm.write { realm.add(NoteDog(value: ["id": 1])) }
        #expect(other.next())
        #expect(other.all == ["initial 0", "update 1"])
        queue.sync {}
        #expect(log.all == ["delivery"])
        otherToken.invalidate()
    }
}
