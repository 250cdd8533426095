import Foundation
@testable import Strata
import StrataEventLoop
import Testing

/// An actor that runs on a test loop, owns a Realm there and iterates its async sequences.
private actor LoopActor {
    let loop: LibUVEventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    init(loop: LibUVEventLoop) { self.loop = loop }

    /// Iterates the dogs' changes until `count` arrived, recording each.
    func collectDogChanges(_ configuration: Realm.Configuration, count: Int, into harness: LoopHarness) async throws {
        loop.preconditionInEventLoop()
        let realm = try Realm(configuration: configuration)
        var seen = 0
        for await change in realm.objects(NoteDog.self).sorted(byKeyPath: "age").changes {
            harness.record(describe(change))
            seen += 1
            if seen == count { break }
        }
    }

    /// Iterates one dog's changes until the sequence finishes, recording each.
    func collectObjectChanges(_ configuration: Realm.Configuration, id: Int, into harness: LoopHarness) async throws {
        let realm = try Realm(configuration: configuration)
        let dog = try #require(realm.object(ofType: NoteDog.self, forPrimaryKey: id))
        let changes = dog.changes(keyPaths: ["name"])
        harness.record("registered")
        for await change in changes {
            harness.record(describe(change))
        }
        harness.record("finished")
    }
}

@Suite("Async change sequences")
struct AsyncChangesTests {
    @Test("a collection's changes start with .initial and follow commits; breaking out ends the observation")
    func collectionChanges() async throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let actor = LoopActor(loop: fixture.harness.loop)
        let configuration = fixture.configuration
        let harness = fixture.harness
        // Started on the loop: no thread of the cooperative pool is needed (other tests may
        // block them all).
        let task = Task(executorPreference: fixture.harness.loop) {
            try await actor.collectDogChanges(configuration, count: 2, into: harness)
        }
        #expect(await harness.events(atLeast: 1) == ["initial"])
        try fixture.writeFromOtherThread { $0.add(NoteDog(value: ["id": 9, "age": 25])) }
        #expect(await harness.events(atLeast: 2).last == "d[] i[3] m[]")
        try await task.value
        // The loop is idle again: the token was invalidated, later commits record nothing.
        try fixture.writeFromOtherThread { $0.add(NoteDog(value: ["id": 10, "age": 26])) }
        #expect(harness.settledEvents().count == 2)
    }

    @Test("an object's changes carry key-path-filtered changes and finish when it is deleted")
    func objectChanges() async throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let actor = LoopActor(loop: fixture.harness.loop)
        let configuration = fixture.configuration
        let harness = fixture.harness
        let task = Task(executorPreference: fixture.harness.loop) {
            try await actor.collectObjectChanges(configuration, id: 3, into: harness)
        }
        // Object sequences have no initial value: wait until the observer is registered.
        #expect(await harness.events(atLeast: 1) == ["registered"])
        try fixture.writeFromOtherThread { $0.object(ofType: NoteDog.self, forPrimaryKey: 3)!.age = 1 }
        try fixture.writeFromOtherThread { $0.object(ofType: NoteDog.self, forPrimaryKey: 3)!.name = "x" }
        #expect(await harness.events(atLeast: 2).last == "name:d3->x")
        try fixture.writeFromOtherThread { realm in realm.delete(realm.object(ofType: NoteDog.self, forPrimaryKey: 3)!) }
        try await task.value
        #expect(harness.settledEvents() == ["registered", "name:d3->x", "finished"])
    }
}
