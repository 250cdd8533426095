import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("List range subscript")
struct ListRangeSubscriptTests {
    @Test("setting a range replaces it with any number of elements, managed and unmanaged, as an array's would")
    func rangeSetReplaces() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "range-\(UUID())",
                                                                 objectTypes: [InputPerson.self, InputAddress.self, InputPet.self]))
        let person = try realm.write { realm.create(InputPerson.self, value: ["id": 1, "scores": [0, 1, 2, 3, 4]]) }
        let other = try realm.write { realm.create(InputPerson.self, value: ["id": 2, "scores": [10, 11, 12]]) }
        var array = [0, 1, 2, 3, 4]
        array[1..<4] = [10, 11]
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [0, 1, 2, 3, 4])
        unmanaged[1..<4] = other.scores[0..<2]
        #expect(Array(unmanaged) == array)
        try realm.write { person.scores[1..<4] = other.scores[0..<2] }
        #expect(Array(person.scores) == array)
        // A slice of the list itself, longer than the range it replaces.
        try realm.write { person.scores[0..<1] = person.scores[0..<3] }
        #expect(Array(person.scores) == [0, 10, 11, 10, 11, 4])
        #expect(Array(person.scores[2..<4]) == [11, 10])
    }
}
