import Foundation
@testable import Strata
import Testing
import StrataTestSupport

@Suite("Autorefresh")
struct AutorefreshTests {
    /// Polls `read` on the loop until it returns true, for up to five seconds.
    private func eventually(_ harness: LoopHarness, _ read: @escaping () -> Bool) -> Bool {
        for _ in 0..<500 {
            if harness.run(read) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    @Test("a Realm on an event loop advances by itself after another thread commits, with no observer")
    func advancesByItself() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let dog = UncheckedBox<NoteDog?>(nil)
        try fixture.harness.run { dog.value = fixture.dog(try fixture.realm(), 1) }
        try fixture.writeFromOtherThread { realm in realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!.age = 77 }
        #expect(eventually(fixture.harness) { dog.value!.age == 77 })
        fixture.harness.run { dog.value = nil }
    }

    @Test("with autorefresh off the Realm stays, observers hear refreshRequired, and refresh() delivers")
    func autorefreshOff() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let harness = fixture.harness
        let held = UncheckedBox<(NoteDog, [NotificationToken])?>(nil)
        try harness.run {
            let realm = try fixture.realm()
            realm.autorefresh = false
            let dogs = realm.objects(NoteDog.self)
            held.value = (fixture.dog(realm, 1), [
                realm.observe { notification, _ in harness.record("\(notification)") },
                dogs.observe { harness.record(describe($0)) },
            ])
        }
        #expect(harness.waitForEvents(1) == ["initial"])
        try fixture.writeFromOtherThread { realm in realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!.age = 77 }
        #expect(harness.waitForEvents(2).last == "refreshRequired")
        #expect(harness.settledEvents().count == 2)
        #expect(harness.run { held.value!.0.age } == 10)
        harness.run { _ = held.value!.0.realm!.refresh() }
        #expect(harness.settledEvents().suffix(2) == ["didChange", "d[] i[] m[0, 1]"])
        #expect(harness.run { held.value!.0.age } == 77)
        harness.run {
            held.value!.0.realm!.autorefresh = true
            for token in held.value!.1 { token.invalidate() }
            held.value = nil
        }
    }
}
