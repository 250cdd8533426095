import Foundation
import Strata
import Testing

final class AUOptionalKeyed: Object {
    @Persisted(primaryKey: true) var id: Int?
    @Persisted var count: Int?
    @Persisted var name: String?
}

@Suite("add(_:update:) and accessors read before it")
struct AddUpdateStaleReadTests {
    @Test("an accessor read before add(_:update:) over its object reads the new values (a nil primary key too)")
    func accessorsSeeUpdate() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "stale-\(UUID())",
                                                                 objectTypes: [AUOptionalKeyed.self]))
        realm.beginWrite()
        let first = AUOptionalKeyed()
        realm.add(first)
        #expect(first.id == nil && first.count == nil && first.name == nil)
        let second = AUOptionalKeyed(value: ["count": 3, "name": "x"])
        realm.add(second, update: .all)
        #expect(first.count == 3 && first.name == "x")
        #expect(realm.objects(AUOptionalKeyed.self).count == 1)
        realm.cancelWrite()
    }
}
