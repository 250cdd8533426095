import Foundation
@testable import Strata
import Testing
import StrataTestSupport

/// `maximumNumberOfActiveVersions` bounds every pinned version: frozen Realms and notifiers too.
@Suite("Active version limit")
struct ActiveVersionLimitTests {
    /// The observed Realm lives on a loop thread: its notifier pins every new version before the
    /// Realm reads it, and a frozen copy of each version is kept. Writes come from the test
    /// thread. Before, the notifier's pin let every later pin of that version skip the check,
    /// so the frozen versions piled up without bound; now the write that would make a version
    /// past the limit fails with Realm's error, as Realm's `beginWrite` does (`freeze()` itself
    /// cannot fail in Realm Swift, and does not here either).
    @Test("frozen Realms and notifiers cannot pin past the limit: the next write fails with tooManyActiveVersions")
    func frozenAndObservedVersionsAreBounded() throws {
        let harness = try LoopHarness()
        var configuration = Realm.Configuration(inMemoryIdentifier: "active-versions-\(UUID())",
                                                objectTypes: [NoteDog.self, NotePerson.self, NoteAddress.self])
        configuration.maximumNumberOfActiveVersions = 3
        let observed = UncheckedBox<Realm?>(nil)
        let token = try harness.run {
            let realm = try Realm(configuration: configuration)
            observed.value = realm
            return realm.objects(NoteDog.self).observe { _ in harness.record("change") }
        }
        harness.waitForEvents(1)

        let writer = try Realm(configuration: configuration)
        var frozen: [Realm] = []
        var refusal: Realm.Error?
        for id in 0..<20 {
            do {
                try writer.write { writer.add(NoteDog(value: ["id": id])) }
            } catch let error as Realm.Error {
                refusal = error
                break
            }
            // Once the change is delivered, the loop's Realm reads the new version: freeze it.
            harness.waitForEvents(id + 2)
            harness.run { frozen.append(observed.value!.freeze()) }
            #expect(writer.store.statistics.pinnedVersions <= 4, "at most the limit plus the newest version")
        }
        #expect(refusal?.code == Realm.Error.tooManyActiveVersions)
        #expect(refusal?.localizedDescription.contains("in the Realm exceeded the limit of 3") == true,
                "\(String(describing: refusal))")
        #expect(frozen.count <= 4)

        // Dropping the frozen Realms releases their versions: writing works again.
        harness.run { frozen.removeAll() }
        try writer.write { writer.add(NoteDog(value: ["id": 100])) }
        harness.run {
            token.invalidate()
            observed.value = nil
        }
    }
}
