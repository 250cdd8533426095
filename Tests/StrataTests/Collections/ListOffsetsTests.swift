import Foundation
import Strata
import StrataTestSupport
import Testing

/// `remove(atOffsets:)` and `move(fromOffsets:toOffset:)`, the forms SwiftUI's list editing
/// hands over, on unmanaged and managed lists, against an array's SwiftUI semantics.
@Suite("List offsets")
struct ListOffsetsTests {
    /// What SwiftUI's `Array.move(fromOffsets:toOffset:)` gives, written out for the check.
    private static func expectedMove(_ array: [Int], _ offsets: IndexSet, _ destination: Int) -> [Int] {
        let moving = offsets.map { array[$0] }
        let kept = array.enumerated().filter { !offsets.contains($0.offset) }.map(\.element)
        let insertAt = destination - offsets.count(in: 0..<destination)
        return Array(kept[..<insertAt]) + moving + Array(kept[insertAt...])
    }

    private static let cases: [(IndexSet, Int)] = [
        ([1], 0), ([0], 3), ([0], 1), ([2], 1), ([0, 1], 3), ([2, 3], 0), ([0, 3], 2), ([1, 2, 4], 3), ([], 1), ([4], 5),
    ]

    @Test("move(fromOffsets:toOffset:) puts the elements, in order, before the destination, as SwiftUI's array move")
    func moveMatchesSwiftUI() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "offsets-\(UUID())",
                                                                 objectTypes: [InputPerson.self, InputAddress.self, InputPet.self]))
        let person = try realm.write { realm.create(InputPerson.self, value: ["id": 1]) }
        for (offsets, destination) in Self.cases {
            let start = [0, 1, 2, 3, 4]
            let unmanaged = List<Int>()
            unmanaged.append(objectsIn: start)
            unmanaged.move(fromOffsets: offsets, toOffset: destination)
            let expected = Self.expectedMove(start, offsets, destination)
            #expect(Array(unmanaged) == expected, "\(Array(offsets)) → \(destination)")
            try realm.write {
                person.scores.removeAll()
                person.scores.append(objectsIn: start)
                person.scores.move(fromOffsets: offsets, toOffset: destination)
            }
            #expect(Array(person.scores) == expected, "managed \(Array(offsets)) → \(destination)")
        }
    }

    @Test("remove(atOffsets:) removes the elements at the offsets")
    func removeAtOffsets() {
        let list = List<String>()
        list.append(objectsIn: ["a", "b", "c", "d"])
        list.remove(atOffsets: [0, 2])
        #expect(Array(list) == ["b", "d"])
        list.remove(atOffsets: [])
        #expect(Array(list) == ["b", "d"])
    }

    @Test("asyncRefresh advances an actor's Realm to a commit made elsewhere")
    @MainActor
    func asyncRefresh() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "async-refresh-\(UUID())",
                                                objectTypes: [InputPerson.self, InputAddress.self, InputPet.self])
        let realm = try await Realm(configuration: configuration, actor: MainActor.shared)
        let failures = onAnotherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.create(InputPerson.self, value: ["id": 9]) }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(realm.objects(InputPerson.self).isEmpty)
        #expect(await realm.asyncRefresh())
        #expect(realm.objects(InputPerson.self).count == 1)
    }
}
