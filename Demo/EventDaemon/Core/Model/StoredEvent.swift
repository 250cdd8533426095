import Foundation
import Strata

/// An ingested event, stored once per id.
public final class StoredEvent: Object, CustomEventRepresentable {
    @Persisted(primaryKey: true) public var id: String
    @Persisted(indexed: true) public var type: String
    @Persisted(indexed: true) public var source: String
    @Persisted public var time: Date
    @Persisted public var payload: AnyRealmValue
    /// When the daemon stored it.
    @Persisted public var receivedAt: Date

    /// The event as the protocol's JSON (what subscribers receive).
    public var json: JSONValue {
        .object([
            "id": .string(id), "type": .string(type), "source": .string(source),
            "time": .string(time.formatted(.iso8601)), "payload": JSONValue(payload),
        ])
    }

    public func customEventRepresentation() -> String { json.text }
}

/// An alert a rule raised for an event.
public final class Alert: Object, CustomEventRepresentable {
    @Persisted(primaryKey: true) public var id: String
    @Persisted(indexed: true) public var rule: String
    @Persisted public var eventId: String
    @Persisted public var createdAt: Date

    public var json: JSONValue {
        .object(["id": .string(id), "rule": .string(rule), "eventId": .string(eventId),
                 "createdAt": .string(createdAt.formatted(.iso8601))])
    }

    public func customEventRepresentation() -> String { json.text }
}

/// The daemon's model classes.
public let daemonObjectTypes: [ObjectBase.Type] = [StoredEvent.self, Alert.self]
