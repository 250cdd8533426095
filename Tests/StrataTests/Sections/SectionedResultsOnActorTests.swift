import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Realm Swift's `observe(keyPaths:on: actor)` on sectioned results and on one section, with
/// string and Swift key paths.
@Suite("SectionedResults.observe(on: actor)")
struct SectionedResultsOnActorTests {
    @MainActor
    @Test("sectioned results deliver on the actor, with sections resolved there; Swift key paths filter modifications")
    func sectionsOnActor() async throws {
        let configuration = confinementConfiguration("sections-on-actor")
        let realm = try await Realm(configuration: configuration, actor: MainActor.shared)
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": 1, "name": "Bella"])) }
        let keeper = try await DogKeeper(configuration: configuration)
        let sections = realm.objects(NoteDog.self)
            .sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        let token = await sections.observe(keyPaths: [\.name], on: keeper) { keeper, change in
            switch change {
            case .initial(let sections): keeper.record("initial \(sections.allKeys)")
            case .update(let sections, _, let insertions, let modifications, let inserted, _):
                keeper.record("update \(sections.allKeys) i\(insertions) m\(modifications) +\(Array(inserted))")
            }
        }
        await keeper.waitForEntries(1)
        let bella = realm.objects(NoteDog.self).first!
        try await realm.asyncWrite { bella.age = 4 }                          // not an observed key path
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": 2, "name": "Alfie"])) }
        await keeper.waitForEntries(2)
        try await realm.asyncWrite { bella.name = "Bonnie" }                  // modified in place
        await keeper.waitForEntries(3)
        #expect(await keeper.seen == ["initial [\"B\"]", "update [\"A\", \"B\"] i[[0, 0]] m[] +[0]",
                                      "update [\"A\", \"B\"] i[] m[[1, 0]] +[]"])
        token.invalidate()
        await keeper.stop()
    }

    @MainActor
    @Test("one section delivers on the actor only the changes to its rows")
    func sectionOnActor() async throws {
        let configuration = confinementConfiguration("section-on-actor")
        let realm = try await Realm(configuration: configuration, actor: MainActor.shared)
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": 1, "name": "Bella"])) }
        let keeper = try await DogKeeper(configuration: configuration)
        let sections = realm.objects(NoteDog.self)
            .sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        let token = await sections[0].observe(keyPaths: ["name"], on: keeper) { keeper, change in
            switch change {
            case .initial(let section): keeper.record("initial \(section.key) \(section.count)")
            case .update(let section, _, let insertions, _, _, _): keeper.record("update \(section.key) i\(insertions)")
            }
        }
        await keeper.waitForEntries(1)
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": 2, "name": "Alfie"])) }   // section A only
        try await realm.asyncWrite { realm.add(NoteDog(value: ["id": 3, "name": "Bruno"])) }
        await keeper.waitForEntries(2)
        #expect(await keeper.seen == ["initial B 1", "update B i[[1, 1]]"])
        token.invalidate()
        await keeper.stop()
    }
}
