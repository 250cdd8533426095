import Foundation
@testable import Strata
import Testing

final class QSDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var owner: QSPerson?
}

final class QSPerson: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var dogs: List<QSDog>
    @Persisted(originProperty: "owner") var owned: LinkingObjects<QSDog>
}

@Suite("Query smoke")
struct QuerySmokeTests {
    @Test("where and filter agree")
    func basics() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "qs-\(UUID())", objectTypes: [QSDog.self, QSPerson.self]))
        try realm.write {
            let ada = realm.create(QSPerson.self, value: ["name": "Ada"])
            for i in 0..<10 {
                let dog = realm.create(QSDog.self, value: ["id": i, "name": i % 2 == 0 ? "Rex\(i)" : "Fido\(i)", "age": i])
                if i < 4 { dog.owner = ada; ada.dogs.append(dog) }
            }
        }
        #expect(KeyPathTracer.dottedName(of: \QSDog.owner?.name) == "owner.name")
        let typed = realm.objects(QSDog.self).where { $0.age > 2 && $0.name.starts(with: "r", options: .caseInsensitive) }
        let rql = realm.objects(QSDog.self).filter("age > $0 AND name BEGINSWITH[c] $1", 2, "r")
        #expect(typed.map(\.id) == [4, 6, 8])
        #expect(rql.map(\.id) == [4, 6, 8])
        #expect(realm.objects(QSDog.self).where { $0.owner.name == "Ada" }.count == 4)
        #expect(realm.objects(QSPerson.self).where { $0.dogs.age > 2 }.count == 1)
        #expect(realm.objects(QSPerson.self).where { ($0.dogs.age >= 2).count == 2 }.count == 1)
        #expect(realm.objects(QSPerson.self).where { $0.owned.count == 4 }.count == 1)
        #expect(realm.objects(QSDog.self).sorted(byKeyPath: "age", ascending: false).first?.id == 9)
        #expect(realm.objects(QSDog.self).filter("age < 5 SORT(age DESC) LIMIT(2)").map(\.id) == [4, 3])
        #expect(realm.objects(QSDog.self).sum(ofProperty: "age") == 45)
        #expect(realm.objects(QSDog.self).average(ofProperty: "age") == 4.5)
        #expect(realm.objects(QSDog.self).where { $0.name == "Rex4" }.first?.id == 4)
        let ada = try #require(realm.object(ofType: QSPerson.self, forPrimaryKey: "Ada"))
        #expect(ada.dogs.where { $0.age > 1 }.map(\.id) == [2, 3])
        #expect(throws: Realm.Error.self) { _ = try realm.objects(QSDog.self).filter(validating: "agee > 3") }
        #expect(throws: Realm.Error.self) { _ = try realm.objects(QSDog.self).filter(validating: "age > ") }
    }
}
