import Foundation
@testable import Strata
import Testing

/// A value stored as an `ObjectId`, whose default is therefore generated too.
struct GeneratedTicket: CustomPersistable, Codable, Equatable {
    typealias PersistedType = ObjectId
    var id: ObjectId
    init(persistedValue: ObjectId) { id = persistedValue }
    var persistableValue: ObjectId { id }
}

final class GeneratedIDs: Object, Codable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var token: UUID
    @Persisted var created: Date
    @Persisted var ticket: GeneratedTicket
    @Persisted var name: String
}

/// A hand-written `encode(to:)` that codes the storage (`_id`, `_token`), as the synthesized one
/// does, not the properties' getters.
final class HandEncodedIDs: Object, Encodable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var token: UUID

    enum CodingKeys: String, CodingKey { case id, token }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(__id, forKey: .id)
        try container.encode(_token, forKey: .token)
    }
}

@Suite("Defaults generated once: ObjectId, UUID, Date")
struct CodableGeneratedDefaultTests {
    private func encoded(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test("encoding an unmanaged object before any read writes the values the object keeps, and a second encode writes them again")
    func encodeBeforeRead() throws {
        let object = GeneratedIDs()
        let first = try encoded(object)
        let second = try encoded(object)
        #expect(first["_id"] as? String == object._id.stringValue)
        #expect(first["token"] as? String == object.token.uuidString)
        #expect(first["ticket"] as? [String: String] == ["id": object.ticket.id.stringValue])
        let decoded = try JSONDecoder().decode(GeneratedIDs.self,
                                               from: JSONSerialization.data(withJSONObject: first))
        #expect(decoded.created == object.created)
        #expect(NSDictionary(dictionary: first) == NSDictionary(dictionary: second))
    }

    @Test("the value an encode wrote is the one realm.add stores, and a managed object encodes it again")
    func encodeThenAdd() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                                 objectTypes: [GeneratedIDs.self, HandEncodedIDs.self]))
        let object = GeneratedIDs()
        let before = try encoded(object)
        try realm.write { realm.add(object) }
        let stored = try #require(realm.objects(GeneratedIDs.self).first)
        #expect(stored._id.stringValue == before["_id"] as? String)
        #expect(stored.token.uuidString == before["token"] as? String)
        let after = try encoded(stored)
        #expect(after["_id"] as? String == before["_id"] as? String && after["token"] as? String == before["token"] as? String)
        // A managed accessor of the same row reads the same values.
        let again = try #require(realm.object(ofType: GeneratedIDs.self, forPrimaryKey: stored._id))
        #expect(again.token == stored.token && again.created == stored.created)
    }

    @Test("a hand-written encode(to:) that codes the storage sees the same values as the object")
    func handWritten() throws {
        let object = HandEncodedIDs()
        let json = try encoded(object)
        #expect(json["id"] as? String == object._id.stringValue)
        #expect(json["token"] as? String == object.token.uuidString)
    }

    @Test("a decoded object keeps the decoded values, and two new objects get different ids")
    func decodedAndDistinct() throws {
        let object = GeneratedIDs()
        let data = try JSONEncoder().encode(object)
        let decoded = try JSONDecoder().decode(GeneratedIDs.self, from: data)
        #expect(decoded._id == object._id && decoded.token == object.token && decoded.ticket == object.ticket)
        #expect(GeneratedIDs()._id != GeneratedIDs()._id)
    }

    @Test("a managed accessor's properties make no box for a generated default (it reads its row)")
    func accessorsMakeNoBox() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                                 objectTypes: [GeneratedIDs.self, HandEncodedIDs.self]))
        try realm.write { realm.add(GeneratedIDs()) }
        let accessor = try #require(realm.objects(GeneratedIDs.self).first)
        func storage(_ object: GeneratedIDs) throws -> Persisted<ObjectId> {
            try #require(Mirror(reflecting: object).children.first { $0.label == "__id" }?.value as? Persisted<ObjectId>)
        }
        guard case .unmanagedNoDefault = try storage(accessor).state else {
            Issue.record("a managed accessor's ObjectId storage holds \(try storage(accessor).state)")
            return
        }
        guard case .unmanagedGenerated = try storage(GeneratedIDs()).state else {
            Issue.record("an unmanaged object's ObjectId storage should share a generated default")
            return
        }
    }
}
