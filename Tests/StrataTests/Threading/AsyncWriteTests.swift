import Foundation
@testable import Strata
import Testing
import StrataTestSupport

private actor LoopWriter {
    let loop: LibUVEventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    init(loop: LibUVEventLoop) { self.loop = loop }

    func addDog(_ configuration: Realm.Configuration, id: Int) async throws -> Int {
        let realm = try Realm(configuration: configuration)
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": id, "name": "async"])) }
        return realm.objects(NoteDog.self).count
    }
}

@Suite("Asynchronous writes")
struct AsyncWriteTests {
    @Test("writeAsync runs queued writes in order on the loop and reports completion; cancel removes a queued one")
    func writeAsyncOrder() throws {
        let fixture = try NotificationFixture()
        let harness = fixture.harness
        let realmBox = UncheckedBox<Realm?>(nil)
        let busy = try harness.run {
            let realm = try fixture.realm()
            realmBox.value = realm
            for id in 1...3 {
                realm.writeAsync({ realm.add(NoteDog(value: ["id": id])) }, onComplete: { error in
                    harness.record("done \(id) \(error == nil ? "ok" : "\(error!)") count \(realm.objects(NoteDog.self).count)")
                })
            }
            let cancelled = realm.writeAsync { realm.add(NoteDog(value: ["id": 99])) }
            try realm.cancelAsyncWrite(cancelled)
            return realm.isPerformingAsynchronousWriteOperations
        }
        #expect(busy)
        #expect(harness.waitForEvents(3) == ["done 1 ok count 1", "done 2 ok count 2", "done 3 ok count 3"])
        let after = harness.run { (realmBox.value!.isPerformingAsynchronousWriteOperations, realmBox.value!.objects(NoteDog.self).count) }
        #expect(after == (false, 3))
        harness.run { realmBox.value = nil }
    }

    @Test("beginAsyncWrite commits with commitAsyncWrite; a block that returns uncommitted is cancelled")
    func beginAsyncWrite() throws {
        let fixture = try NotificationFixture()
        let harness = fixture.harness
        let realmBox = UncheckedBox<Realm?>(nil)
        try harness.run {
            let realm = try fixture.realm()
            realmBox.value = realm
            realm.beginAsyncWrite {
                realm.add(NoteDog(value: ["id": 1]))
                realm.commitAsyncWrite { error in harness.record("committed \(error == nil)") }
            }
            realm.beginAsyncWrite { realm.add(NoteDog(value: ["id": 2])) }
            realm.writeAsync({}, onComplete: { _ in harness.record("count \(realm.objects(NoteDog.self).count)") })
        }
        #expect(harness.waitForEvents(2) == ["committed true", "count 1"])
        harness.run { realmBox.value = nil }
    }

    @Test("asyncWrite from an actor on the Realm's loop")
    func asyncWriteFromActor() async throws {
        let fixture = try NotificationFixture()
        let writer = LoopWriter(loop: fixture.harness.loop)
        let count = try await writer.addDog(fixture.configuration, id: 5)
        #expect(count == 1)
    }
}
