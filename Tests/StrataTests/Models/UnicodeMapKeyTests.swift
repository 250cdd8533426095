import Foundation
import Strata
import Testing

final class UnicodeKeyedScores: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var scores: Map<String, Int>
}

@Suite("Map keys that are one text in two Unicode forms")
struct UnicodeMapKeyTests {
    private let composed = "caf\u{E9}", decomposed = "cafe\u{301}"

    @Test("a map keeps both keys apart, as Realm does (bytes), and copying it into another object keeps both, without trapping")
    func keptApartAndCopied() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                                 objectTypes: [UnicodeKeyedScores.self]))
        try realm.write {
            let object = realm.create(UnicodeKeyedScores.self, value: ["id": 1])
            object.scores[composed] = 1
            object.scores[decomposed] = 2
        }
        let original = try #require(realm.object(ofType: UnicodeKeyedScores.self, forPrimaryKey: 1))
        #expect(original.scores.count == 2)
        try realm.write {
            let copy = realm.create(UnicodeKeyedScores.self, value: ["id": 2, "scores": original.scores])
            #expect(copy.scores.count == 2)
            #expect(Set(copy.scores.keys.map { Array($0.utf8) }) == [Array(composed.utf8), Array(decomposed.utf8)])
        }
    }
}
