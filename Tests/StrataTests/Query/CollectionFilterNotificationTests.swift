import Foundation
@testable import Strata
import Testing

/// The notifier of a filtered map of objects delivers the filtered values, as the results read
/// them (before, the predicate was ignored and every value came back).
@Suite("Collection filters: notifications see the predicate")
struct CollectionFilterNotificationTests {
    @Test("a filtered Map<String, Object?> notifies with only the matching values")
    func filteredMapOfObjects() throws {
        let fixture = try NotificationFixture()
        try fixture.write { realm in
            let person = realm.create(NotePerson.self, value: ["id": 1, "name": "p"])
            person.pets["young"] = realm.create(NoteDog.self, value: ["id": 1, "name": "pup", "age": 1])
            person.pets["old"] = realm.create(NoteDog.self, value: ["id": 2, "name": "rex", "age": 30])
        }
        let token = try fixture.harness.run {
            let realm = try fixture.realm()
            let person = realm.object(ofType: NotePerson.self, forPrimaryKey: 1)!
            let results = person.pets.filter("age > %d", 20)
            return results.observe { change in
                switch change {
                case .initial(let values): fixture.harness.record("initial \(values.compactMap { $0?.name })")
                case .update(let values, _, _, _): fixture.harness.record("update \(values.compactMap { $0?.name })")
                case .error(let error): fixture.harness.record("error \(error)")
                }
            }
        }
        #expect(fixture.harness.waitForEvents(1) == ["initial [\"rex\"]"])
        try fixture.write { realm in
            let person = realm.object(ofType: NotePerson.self, forPrimaryKey: 1)!
            person.pets["older"] = realm.create(NoteDog.self, value: ["id": 3, "name": "max", "age": 40])
        }
        #expect(fixture.harness.waitForEvents(2).last == "update [\"rex\", \"max\"]")
        token.invalidate()
    }
}
