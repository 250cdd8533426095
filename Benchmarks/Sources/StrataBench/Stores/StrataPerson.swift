import Foundation
import Strata

/// The workload's `Person` (BENCHMARKS.md) as a Strata (Realm) model.
final class BenchPerson: Object {
    @Persisted(primaryKey: true) var id: Int64
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var score: Double
    @Persisted var city: String
    @Persisted var createdAt: Date

    /// An unmanaged object holding row `data`.
    convenience init(_ data: PersonData) {
        self.init()
        id = data.id
        name = data.name
        age = data.age
        score = data.score
        city = data.city
        createdAt = data.createdAt
    }

    /// A checksum over all six properties (each one read), so that reads cannot be skipped.
    var checksum: Int {
        Int(id) &+ name.utf8.count &+ age &+ Int(score) &+ city.utf8.count &+ Int(createdAt.timeIntervalSince1970)
    }
}
