import Foundation
import GRDB

/// The workload's `Person` (BENCHMARKS.md) as a GRDB record, written by hand (no Codable): `init(row:)` reads
/// columns by position, which is GRDB's fastest path and safe because the table is created with
/// exactly these columns in this order and requests select `*`.
struct Person: Identifiable, FetchableRecord, PersistableRecord {
    var id: Int64
    var name: String
    var age: Int
    var score: Double
    var city: String
    var createdAt: Date

    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let age = Column("age")
        static let score = Column("score")
        static let city = Column("city")
        static let createdAt = Column("createdAt")
    }

    init(_ data: PersonData) {
        (id, name, age, score, city, createdAt) = (data.id, data.name, data.age, data.score, data.city, data.createdAt)
    }

    init(row: Row) {
        id = row[0]
        name = row[1]
        age = row[2]
        score = row[3]
        city = row[4]
        createdAt = Date(timeIntervalSince1970: row[5])
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.name] = name
        container[Columns.age] = age
        container[Columns.score] = score
        container[Columns.city] = city
        container[Columns.createdAt] = createdAt.timeIntervalSince1970
    }

    /// The table, with the index on `name` (created before any insert).
    static func createTable(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull().indexed()
            table.column("age", .integer).notNull()
            table.column("score", .double).notNull()
            table.column("city", .text).notNull()
            table.column("createdAt", .double).notNull()
        }
    }

    /// A checksum over all six fields, so that decoding cannot be skipped.
    var checksum: Int {
        Int(id) &+ name.utf8.count &+ age &+ Int(score) &+ city.utf8.count &+ Int(createdAt.timeIntervalSince1970)
    }
}
