import Foundation
@testable import Strata
import StrataEngine
import Testing

final class EventDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var born: Date
    @Persisted var photo: Data
    @Persisted var owner: EventPerson?
    @Persisted var tags: List<String>
}

final class EventPerson: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var address: EventAddress?
}

final class EventAddress: EmbeddedObject {
    @Persisted var city: String
}

final class EventBadge: Object, CustomEventRepresentable {
    @Persisted(primaryKey: true) var id: Int
    func customEventRepresentation() -> String { "{\"badge\":\(id)}" }
}

@Suite("Events")
struct EventTests {
    private func realm(metadata: [String: String] = ["user": "ada"]) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                objectTypes: [EventDog.self, EventPerson.self, EventAddress.self, EventBadge.self])
        configuration.eventConfiguration = EventConfiguration(metadata: metadata)
        return try Realm(configuration: configuration)
    }

    private func seed(_ realm: Realm) throws {
        try realm.write {
            let ada = realm.create(EventPerson.self, value: ["name": "Ada", "address": ["city": "Paris"]])
            for id in 1...3 {
                let dog = realm.create(EventDog.self, value: ["id": id, "name": "d\(id)", "age": id,
                                                              "born": Date(timeIntervalSince1970: 86_400.5)] as [String: Any])
                dog.owner = ada
            }
        }
    }

    /// The recorded events: (event, parsed data, metadata user).
    private func recorded(_ realm: Realm) throws -> [(event: String, data: Any?, activity: String, user: String?)] {
        try EventStore.for(realm.configuration).allEvents().map { row in
            var data: Any?
            if case .string(let text)? = row["data"] { data = try? JSONSerialization.jsonObject(with: Data(text.utf8)) }
            var user: String?
            if case .string(let value)? = row["user"] { user = value }
            guard case .string(let event)? = row["event"], case .string(let activity)? = row["activity"] else {
                return ("?", nil, "?", nil)
            }
            return (event, data, activity, user)
        }
    }

    /// Parsed JSON written back with sorted keys, for comparing with expected text.
    private func json(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        else { return "nil" }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("a scope records a query read, folds later reads of that class into it, and records writes in Realm's shape")
    func readsAndWrites() throws {
        let realm = try realm()
        try seed(realm)
        let events = try #require(realm.events)
        let scope = events.beginScope(activity: "adopt")
        #expect(scope.isActive && scope.metadata == ["user": "ada"])
        let older = realm.objects(EventDog.self).where { $0.age >= 2 }
        _ = older.count
        _ = realm.object(ofType: EventDog.self, forPrimaryKey: 1)   // folds into the query event
        try realm.write {
            let dog = realm.object(ofType: EventDog.self, forPrimaryKey: 2)!
            dog.age = 20
            dog.name = dog.name                       // unchanged: not in newValue
            dog.tags.append("good")
            realm.delete(realm.object(ofType: EventDog.self, forPrimaryKey: 3)!)
            realm.add(EventDog(value: ["id": 4, "name": "new"]))
            let temporary = EventDog(value: ["id": 5])
            realm.add(temporary)
            realm.delete(temporary)                   // inserted and deleted: in neither list
        }
        try realm.write {}                            // no change: no event
        var completed: (any Error)?? = .none
        scope.commit { completed = .some($0) }
        #expect(completed != nil && completed! == nil)
        #expect(!scope.isActive)

        let rows = try recorded(realm)
        // The reads inside the write are at the same version and class: they fold into the
        // query's event too.
        #expect(rows.map(\.event) == ["read", "write"])
        #expect(rows.allSatisfy { $0.activity == "adopt" && $0.user == "ada" })
        let query = try #require(rows[0].data as? [String: Any])
        #expect(query["type"] as? String == "EventDog")
        #expect((query["value"] as? [[String: Any]])?.map { $0["id"] as? Int } == [1, 2, 3])
        let first = try #require((query["value"] as? [[String: Any]])?.first)
        #expect(first["born"] as? String == "1970-01-02T00:00:00.500Z")
        #expect(first["photo"] == nil && first["owner"] as? String == "Ada")
        let write = try #require((rows[1].data as? [String: Any])?["EventDog"] as? [String: Any])
        #expect((write["insertions"] as? [[String: Any]])?.map { $0["id"] as? Int } == [4])
        #expect((write["deletions"] as? [[String: Any]])?.map { $0["name"] as? String } == ["d3"])
        let modification = try #require((write["modifications"] as? [[String: Any]])?.first)
        #expect((modification["oldValue"] as? [String: Any])?["age"] as? Int == 2)
        #expect(json(modification["newValue"]) == #"{"age":20,"tags":["good"]}"#)
    }

    @Test("the second read event: a read of another class ends the query's event")
    func readCombining() throws {
        let realm = try realm()
        try seed(realm)
        let scope = realm.events!.beginScope(activity: "browse")
        _ = realm.objects(EventDog.self).where { $0.age == 1 }.count
        _ = realm.object(ofType: EventPerson.self, forPrimaryKey: "Ada")
        _ = realm.object(ofType: EventPerson.self, forPrimaryKey: "Ada")   // repeated: dropped
        _ = realm.object(ofType: EventDog.self, forPrimaryKey: 3)
        scope.commit()
        let rows = try recorded(realm)
        #expect(rows.map { json($0.data) } == [
            #"{"type":"EventDog","value":[{"age":1,"born":"1970-01-02T00:00:00.500Z","id":1,"name":"d1","owner":"Ada","tags":[]}]}"#,
            #"{"type":"EventPerson","value":[{"address":{"city":"Paris"},"name":"Ada"}]}"#,
            #"{"type":"EventDog","value":[{"age":3,"born":"1970-01-02T00:00:00.500Z","id":3,"name":"d3","owner":"Ada","tags":[]}]}"#,
        ])
    }

    @Test("embedded changes modify the parent; custom representations replace the JSON")
    func embeddedAndCustom() throws {
        let realm = try realm()
        try seed(realm)
        let scope = realm.events!.beginScope(activity: "move")
        try realm.write {
            realm.object(ofType: EventPerson.self, forPrimaryKey: "Ada")!.address!.city = "Lyon"
            realm.add(EventBadge(value: ["id": 7]))
        }
        scope.commit()
        let write = try #require(try recorded(realm).first { $0.event == "write" }?.data as? [String: Any])
        #expect(json(write["EventBadge"]) == #"{"insertions":[{"badge":7}]}"#)
        #expect(json(write["EventPerson"]) == #"{"modifications":[{"newValue":{"address":{"city":"Lyon"}},"oldValue":{"address":{"city":"Paris"},"name":"Ada"}}]}"#)
    }

    @Test("cancel and release discard; custom events need no scope; metadata updates apply to later scopes")
    func cancelCustomAndMetadata() throws {
        let realm = try realm()
        try seed(realm)
        let events = realm.events!
        let cancelled = events.beginScope(activity: "nothing")
        _ = realm.objects(EventDog.self).count
        _ = realm.objects(EventDog.self).first
        cancelled.cancel()
        do {
            let released = events.beginScope(activity: "released")
            _ = realm.object(ofType: EventDog.self, forPrimaryKey: 1)
            _ = released
        }
        events.recordEvent(activity: "custom", eventType: "login", data: "not json at all")
        events.updateMetadata(["user": "grace", "team": "blue"])
        let later = events.beginScope(activity: "later")
        _ = realm.object(ofType: EventDog.self, forPrimaryKey: 2)
        later.commit()
        let rows = try recorded(realm)
        #expect(rows.map(\.event) == ["login", "read"])
        #expect(rows.map(\.user) == ["ada", "grace"])
        let raw = try EventStore.for(realm.configuration).allEvents()
        #expect(raw[0]["data"] == .string("not json at all"))
        #expect(raw[1]["team"] == .string("blue") && raw[0]["team"] == .null)
        #expect(realm.objects(EventDog.self).count == 3)
    }

    @Test("committing a scope twice traps")
    func inactiveCommitTraps() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "events-twice", objectTypes: [EventDog.self, EventPerson.self, EventAddress.self, EventBadge.self])
            configuration.eventConfiguration = EventConfiguration()
            let scope = try! Realm(configuration: configuration).events!.beginScope(activity: "a")
            scope.commit()
            scope.commit()
        }
    }

    @Test("events are durable: a file Realm's event store keeps them")
    func durableFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString).strata")
        var configuration = Realm.Configuration(fileURL: url, objectTypes: [EventDog.self, EventPerson.self, EventAddress.self, EventBadge.self])
        configuration.eventConfiguration = EventConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.events!.recordEvent(activity: "a", eventType: "custom", data: "{}")
        let files = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(files.contains { $0.hasPrefix(url.lastPathComponent + ".events.log.") })
        #expect(try EventStore.for(configuration).allEvents().count == 1)
    }
}
