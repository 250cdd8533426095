import Foundation
import Strata
import Testing

// The projection example of the DocC article ModelsAndWrites, kept compiling and running; `print`
// is replaced by a log the
// test reads, and the code runs on a loop thread so that it can observe.

final class DogRow: Projection<ReadmeDog> {
    @Projected(\ReadmeDog.name) var title
    @Projected(\ReadmeDog.owner?.name) var ownerName
    @Projected(\ReadmeDog.name.localizedUppercase) var badge
    @Projected(\ReadmeDog.tricks.count) var trickCount
}

@Suite("README projection example")
struct ReadmeProjectionExampleTests {
    @Test("the projection example reads, writes through and observes as the README shows")
    func projectionExample() throws {
        let log = try LoopHarness()
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                objectTypes: [ReadmePerson.self, ReadmeDog.self])
        let token = try log.run {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                let ada = realm.create(ReadmePerson.self, value: ["name": "Ada"])
                realm.create(ReadmeDog.self, value: ["id": ObjectId.generate(), "name": "Rex", "age": 1, "owner": ada])
                realm.create(ReadmeDog.self, value: ["id": ObjectId.generate(), "name": "Fido", "age": 9])
            }

            let rows = realm.objects(DogRow.self).where { $0.age < 2 }
            for row in rows { log.record("\(row.title) \(row.ownerName ?? "-") \(row.badge)") }
            try realm.write { rows[0].title = "Rexy" }
            let token = rows[0].observe { change in
                if case .change(_, let properties) = change { log.record("\(properties.map(\.name))") }
            }

            // Not in the article: what the example relies on.
            #expect(realm.objects(ReadmeDog.self).filter("name == 'Rexy'").count == 1)
            let rex = rows[0].rootObject
            try realm.write { rex.age = 2 }       // not projected: no callback
            try realm.write { rex.name = "Rex" }
            return token
        }
        #expect(log.waitForEvents(2) == ["Rex Ada REX", "[\"title\", \"badge\"]"])
        #expect(log.settledEvents().count == 2)
        log.run { token.invalidate() }
    }
}
