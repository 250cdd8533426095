import Foundation
@testable import Strata
import StrataEngine
import StrataTestSupport
import Testing

@Suite("Notification soak")
struct NotificationSoakTests {
    @Test("thousands of commits against live observers leave no pinned versions or changesets behind")
    func boundedRetention() throws {
        let fixture = try NotificationFixture()
        try fixture.seed()
        let harness = fixture.harness
        let counts = UncheckedBox<[Int]>([])
        let tokens = try harness.run {
            let realm = try fixture.realm()
            let sorted = realm.objects(NoteDog.self).where { $0.age >= 0 }.sorted(byKeyPath: "age")
            return [
                sorted.observe { change in
                    if case .update(let dogs, _, _, _) = change { counts.value.append(dogs.count) }
                },
                fixture.person(realm, 0).dogs.observe { _ in },
                fixture.dog(realm, 1).observe { (_: ObjectChange<NoteDog>) in },
            ]
        }
        let commits = 2_000
        try fixture.onOtherThread { realm in
            for id in 0..<commits {
                try realm.write {
                    realm.add(NoteDog(value: ["id": 100 + id, "age": id % 97]))
                    realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!.age = id
                }
            }
        }
        // The notifiers catch up at their own pace (under ThreadSanitizer, on two busy cores, more
        // than a fixed pause); retention that never falls back fails here after the deadline.
        func observed() throws -> (Int?, StoreStatistics) {
            try harness.run { (counts.value.last, try fixture.realm().state.store.statistics) }
        }
        waitUntil(timeout: 60) {
            guard let (count, statistics) = try? observed() else { return true }
            return count == 6 + commits && statistics.pinnedVersions <= 2 && statistics.retainedChangesets <= 2
        }
        let (finalCount, statistics) = try observed()
        // Every commit reached the observer, coalesced into however many deliveries ran.
        #expect(finalCount == 6 + commits)
        #expect(counts.value.count <= commits)
        // What stays pinned: the loop's Realms and each notifier's delivered version, all at
        // the latest version by now.
        #expect(statistics.pinnedVersions <= 2)
        #expect(statistics.retainedChangesets <= 2)
        harness.run { for token in tokens { token.invalidate() } }
    }
}
