import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// An actor on the default executor that owns a Realm, as in Realm Swift's actor guide.
actor DogKeeper {
    var realm: Realm!
    var token: NotificationToken?
    var seen: [String] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func add(id: Int) async throws {
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": id, "name": "dog \(id)"])) }
    }

    func count() -> Int { realm.objects(NoteDog.self).count }

    /// The Realm in a box that crosses isolation unchecked, to show that using it outside traps.
    func smuggledRealm() -> UncheckedBox<Realm> { UncheckedBox(realm) }

    /// Observes the actor's own Realm: deliveries run as jobs on this actor.
    func observeDogs() {
        token = realm.objects(NoteDog.self).observe { [unowned self] change in
            switch change {
            case .initial(let dogs): record("initial \(dogs.count)")
            case .update(let dogs, _, let insertions, _): record("update \(dogs.count) \(insertions)")
            case .error(let error): record("error \(error)")
            }
        }
    }

    func record(_ entry: String) {
        seen.append(entry)
        for waiter in waiters where seen.count >= waiter.count { waiter.continuation.resume() }
        waiters.removeAll { seen.count >= $0.count }
    }

    /// Suspends until `count` entries were recorded.
    func waitForEntries(_ count: Int) async {
        if seen.count >= count { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    func stop() {
        token?.invalidate()
        token = nil
        realm = nil
    }
}

/// Realm Swift 10.39+ actor-confined Realms, for an actor on the default executor.
@Suite("Actor-confined Realms")
struct ActorRealmTests {
    @Test("Realm(configuration:actor:) on a default-executor actor: asyncWrite commits and its own observers are delivered on the actor")
    func actorOwnsRealm() async throws {
        let configuration = confinementConfiguration("actor-realm")
        let keeper = try await DogKeeper(configuration: configuration)
        await keeper.observeDogs()
        await keeper.waitForEntries(1)
        try await keeper.add(id: 1)
        await keeper.waitForEntries(2)
        // A commit from another thread reaches the actor too.
        try onNewThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(NoteDog(value: ["id": 2])) }
        }
        await keeper.waitForEntries(3)
        #expect(await keeper.seen == ["initial 0", "update 1 [0]", "update 2 [1]"])
        #expect(await keeper.count() == 2)
        await keeper.stop()
    }

    @MainActor
    @Test("Results and Object observe(on: actor) from the main actor's Realm deliver, isolated to the actor, the values resolved there")
    func observeOnActor() async throws {
        let configuration = confinementConfiguration("observe-on-actor")
        // On Linux the main actor's jobs may run on different threads: confine the Realm to it.
        let realm = try await Realm(configuration: configuration, actor: MainActor.shared)
        let keeper = try await DogKeeper(configuration: configuration)
        let token = await realm.objects(NoteDog.self).where { $0.id > 0 }.observe(on: keeper) { keeper, change in
            switch change {
            case .initial(let dogs): keeper.record("actor initial \(dogs.count)")
            case .update(let dogs, _, let insertions, _): keeper.record("actor update \(dogs.count) \(insertions)")
            case .error(let error): keeper.record("error \(error)")
            }
        }
        await keeper.waitForEntries(1)
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": 5])) }
        await keeper.waitForEntries(2)
        #expect(await keeper.seen == ["actor initial 0", "actor update 1 [0]"])
        token.invalidate()

        let dog = realm.objects(NoteDog.self).first!
        let objectToken = await dog.observe(keyPaths: ["name"], on: keeper) { (keeper, change: ObjectChange<NoteDog>) in
            if case .change(let dog, let properties) = change {
                keeper.record("object \(dog.name) \(properties.map(\.name))")
            }
        }
        try await realm.asyncWrite { dog.name = "Rex" }
        await keeper.waitForEntries(3)
        #expect(await keeper.seen.last == "object Rex [\"name\"]")
        objectToken.invalidate()
        await keeper.stop()
    }

    @MainActor
    @Test("observe(keyPaths:on: actor) with Swift key paths reports changes to those properties only")
    func observeKeyPathsOnActor() async throws {
        let configuration = confinementConfiguration("observe-key-paths-on-actor")
        let realm = try await Realm(configuration: configuration, actor: MainActor.shared)
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": 1])) }
        let keeper = try await DogKeeper(configuration: configuration)
        let token = await realm.objects(NoteDog.self).observe(keyPaths: [\.name], on: keeper) { keeper, change in
            switch change {
            case .initial(let dogs): keeper.record("initial \(dogs.count)")
            case .update(let dogs, _, _, let modifications):
                keeper.record("modified \(modifications) \(dogs.first?.name ?? "-")")
            case .error(let error): keeper.record("error \(error)")
            }
        }
        await keeper.waitForEntries(1)
        let dog = realm.objects(NoteDog.self).first!
        try await realm.asyncWrite { dog.age = 3 }
        try await realm.asyncWrite { dog.name = "Rex" }
        await keeper.waitForEntries(2)
        #expect(await keeper.seen == ["initial 1", "modified [0] Rex"])
        token.invalidate()
        await keeper.stop()
    }

    @Test("a Realm confined to an actor traps when used outside the actor (with Swift's actor-isolation message)")
    func actorRealmOutsideTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let keeper = try! await DogKeeper(configuration: confinementConfiguration("actor-trap"))
            let realm = await keeper.smuggledRealm()
            _ = realm.value.objects(NoteDog.self).count
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        // Swift offers no boolean "is this actor isolated" for any actor, so the check is the
        // actor's `preconditionIsolated`, whose message the runtime writes.
        #expect(message.contains("Incorrect actor executor assumption; expected 'StrataTests.DogKeeper' executor."),
                "\(message)")
    }

    @Test("Realm.asyncOpen calls back on the callback queue with a Realm confined to it; a cancelled open never calls back")
    func asyncOpen() throws {
        let configuration = confinementConfiguration("async-open")
        let keeper = try Realm(configuration: configuration)
        let queue = DispatchQueue(label: "async-open")
        let log = DeliveryLog()
        Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
            dispatchPrecondition(condition: .onQueue(queue))
            do {
                let realm = try result.get()
                try realm.write { realm.add(NoteDog(value: ["id": 1])) }
                log.record("opened \(realm.objects(NoteDog.self).count)")
            } catch {
                log.record("error \(error)")
            }
        }
        #expect(log.next())
        #expect(log.all == ["opened 1"])

        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let task = Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { _ in log.record("called") }
        task.cancel()
        gate.signal()
        queue.sync {}
        #expect(log.all == ["opened 1"])
        keeper.refresh()
        #expect(keeper.objects(NoteDog.self).count == 1)
    }
}
