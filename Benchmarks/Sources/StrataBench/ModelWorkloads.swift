import Foundation
import Strata

/// WORKLOAD.md's `Person` as a Realm model.
final class BenchPerson: Object {
    @Persisted(primaryKey: true) var id: Int64
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var score: Double
    @Persisted var city: String
    @Persisted var createdAt: Date
}

/// Object-API workloads: the cost of reading and writing a managed object's property.
enum ModelWorkloads {
    /// A Realm in a fresh directory with `rows` people.
    static func seeded(_ scratch: Scratch, rows: Int64, durability: Durability) throws -> Realm {
        let configuration = Realm.Configuration(
            fileURL: URL(fileURLWithPath: scratch.path + "/model.strata"), objectTypes: [BenchPerson.self],
            durability: durability)
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for i in 1...rows {
                realm.create(BenchPerson.self, value: [
                    "id": i, "name": "name-\(i)", "age": Int(i % 100), "score": Double(i % 1000) / 10,
                    "city": "city-\(i % 16)", "createdAt": Date(timeIntervalSince1970: 1_704_067_200 + Double(i)),
                ])
            }
        }
        return realm
    }

    /// Nanoseconds per managed property read (an Int and a String property, alternating).
    static func propertyRead(accesses: Int) throws -> Double {
        let scratch = Scratch()
        defer { scratch.remove() }
        let realm = try seeded(scratch, rows: 1_000, durability: .normal)
        let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(500))!
        var checksum = 0
        let start = now()
        for _ in 0..<(accesses / 2) {
            checksum &+= person.age
            checksum &+= person.name.utf8.count
        }
        let elapsed = Double(now() - start)
        precondition(checksum != 0)
        return elapsed / Double(accesses)
    }

    /// Nanoseconds per managed property write inside one write transaction.
    static func propertyWrite(accesses: Int) throws -> Double {
        let scratch = Scratch()
        defer { scratch.remove() }
        let realm = try seeded(scratch, rows: 1_000, durability: .normal)
        let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(500))!
        let start = now()
        try realm.write {
            for i in 0..<accesses { person.score = Double(i) }
        }
        return Double(now() - start) / Double(accesses)
    }
}
