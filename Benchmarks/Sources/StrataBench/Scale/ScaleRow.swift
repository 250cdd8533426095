import Foundation
import GRDB
import Strata

/// Row `id` of the scale series (issue 14's Person-like model): an integer primary key, an
/// indexed string, an integer, a string, a double and a 100-byte string.
struct ScaleRow {
    let id: Int64
    var name: String { "person-\(id)" }
    var age: Int { Int(id % 100) }
    var city: String { "city-\(id % 1000)" }
    var score: Double { Double(id % 10_000) / 100 }
    /// Exactly `bioBytes` ASCII bytes, different for every row.
    var bio: String {
        let head = "bio of person \(id): "
        return head + String(repeating: "x", count: Self.bioBytes - head.utf8.count)
    }

    static let bioBytes = 100
}

/// The scale series' model on Strata.
final class ScalePerson: Object {
    @Persisted(primaryKey: true) var id: Int64
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var city: String
    @Persisted var score: Double
    @Persisted var bio: String

    convenience init(_ row: ScaleRow) {
        self.init()
        (id, name, age, city, score, bio) = (row.id, row.name, row.age, row.city, row.score, row.bio)
    }
}

/// The scale series' model on GRDB, read by column position as `Person` is.
struct ScaleRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "scalePerson"

    var id: Int64
    var name: String
    var age: Int
    var city: String
    var score: Double
    var bio: String

    init(_ row: ScaleRow) {
        (id, name, age, city, score, bio) = (row.id, row.name, row.age, row.city, row.score, row.bio)
    }

    init(row: Row) {
        (id, name, age, city, score, bio) = (row[0], row[1], row[2], row[3], row[4], row[5])
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["age"] = age
        container["city"] = city
        container["score"] = score
        container["bio"] = bio
    }

    /// The table, with the index on `name`.
    static func createTable(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull().indexed()
            table.column("age", .integer).notNull()
            table.column("city", .text).notNull()
            table.column("score", .double).notNull()
            table.column("bio", .text).notNull()
        }
    }
}
