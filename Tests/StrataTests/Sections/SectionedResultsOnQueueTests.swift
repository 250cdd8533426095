import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Realm Swift's `observe(on: queue)` on sectioned results and on one section: the block runs
/// on the queue with sections resolved there.
@Suite("SectionedResults.observe(on: queue)")
struct SectionedResultsOnQueueTests {
    private static func initial(of dog: NoteDog) -> String { String(dog.name.prefix(1)) }

    @Test("sectioned results deliver .initial and each section change on the queue, readable there")
    func sectionsOnQueue() throws {
        let realm = try Realm(configuration: confinementConfiguration("sections-on-queue"))
        try realm.write { realm.add(NoteDog(value: ["id": 1, "name": "Bella"])) }
        let queue = DispatchQueue(label: "sections-observer")
        let log = DeliveryLog()
        let sections = realm.objects(NoteDog.self)
            .sectioned(by: Self.initial, sortDescriptors: [SortDescriptor(keyPath: "name")])
        let token = sections.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let sections):
                log.record("initial \(sections.allKeys) \(sections.map { $0.map(\.name) })")
            case .update(let sections, let deletions, let insertions, let modifications, let inserted, let deleted):
                log.record("update \(sections.allKeys) \(sections.map { $0.map(\.name) }) d\(deletions) i\(insertions) "
                           + "m\(modifications) +\(Array(inserted)) -\(Array(deleted))")
            }
        }
        defer { token.invalidate() }
        #expect(log.next())
        try realm.write { realm.add(NoteDog(value: ["id": 2, "name": "Alfie"])) }
        #expect(log.next())
        try realm.write { realm.object(ofType: NoteDog.self, forPrimaryKey: 1)!.name = "Amber" }
        #expect(log.next())
        #expect(log.all == [
            "initial [\"B\"] [[\"Bella\"]]",
            "update [\"A\", \"B\"] [[\"Alfie\"], [\"Bella\"]] d[] i[[0, 0]] m[] +[0] -[]",
            "update [\"A\"] [[\"Alfie\", \"Amber\"]] d[] i[[0, 1]] m[] +[] -[1]",
        ])
    }

    @Test("one section delivers on the queue only the changes to its own rows")
    func sectionOnQueue() throws {
        let realm = try Realm(configuration: confinementConfiguration("section-on-queue"))
        try realm.write {
            realm.add(NoteDog(value: ["id": 1, "name": "Bella"]))
            realm.add(NoteDog(value: ["id": 2, "name": "Alfie"]))
        }
        let queue = DispatchQueue(label: "section-observer")
        let log = DeliveryLog()
        let sections = realm.objects(NoteDog.self)
            .sectioned(by: Self.initial, sortDescriptors: [SortDescriptor(keyPath: "name")])
        let bSection = try #require(sections.first { $0.key == "B" })
        let token = bSection.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let section): log.record("initial \(section.key) \(section.map(\.name))")
            case .update(let section, let deletions, let insertions, let modifications, _, _):
                log.record("update \(section.key) \(section.map(\.name)) d\(deletions) i\(insertions) m\(modifications)")
            }
        }
        defer { token.invalidate() }
        #expect(log.next())
        try realm.write { realm.add(NoteDog(value: ["id": 3, "name": "Archie"])) }   // section A only
        try realm.write { realm.add(NoteDog(value: ["id": 4, "name": "Bruno"])) }
        #expect(log.next())
        queue.sync {}
        #expect(log.all == ["initial B [\"Bella\"]", "update B [\"Bella\", \"Bruno\"] d[] i[[1, 1]] m[]"])
    }
}
