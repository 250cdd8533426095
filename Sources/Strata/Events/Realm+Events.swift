import Foundation
import StrataEngine

extension Realm {
    /// The Realm's event recorder, as Realm Swift's `events`: nil unless the configuration has
    /// an ``Configuration/eventConfiguration``.
    public var events: Events? {
        guard configuration.eventConfiguration != nil, !isFrozen else { return nil }
        return Events(realm: self)
    }

    /// Whether a scope is recording this Realm's reads and writes.
    var isRecordingEvents: Bool { !state.eventRecorders.isEmpty }

    /// Records the read of one object in every active scope (embedded objects are not
    /// recorded; objects created in the open write are dropped, as they did not exist at the
    /// Realm's version).
    func recordObjectRead(table: TableInfo, key: ObjectKey) {
        guard !table.classInfo.isEmbedded, let pinned = state.pinned,
              pinned.snapshot.table(table.key)?.contains(key) == true else { return }
        let json = eventJSON()
        for recorder in state.eventRecorders {
            recorder.recordRead(className: table.classInfo.className, version: pinned.version, key: key) {
                json.object(table.key, key)
            }
        }
    }

    /// Records the rows a query matched in every active scope.
    func recordQueryRead(table: TableKey, keys: [ObjectKey]) {
        guard let pinned = state.pinned, let schema = pinned.snapshot.table(table)?.schema, !schema.isEmbedded else { return }
        let json = eventJSON()
        let existing = keys.filter { pinned.snapshot.table(table)?.contains($0) == true }
        let objects = existing.map { ($0, json.object(table, $0)) }
        for recorder in state.eventRecorders {
            recorder.recordQuery(className: schema.name, version: pinned.version, objects: objects)
        }
    }

    /// Records a committed write in every active scope: what `instructions` changed between
    /// the frozen Realms `before` and `after`.
    func recordWrite(_ instructions: [Instruction], before: Realm, after: Realm) {
        guard let data = WriteEvent(instructions: instructions, before: before.eventJSON(), after: after.eventJSON()).json
        else { return }
        for recorder in state.eventRecorders { recorder.recordWrite(data) }
    }

    /// The serializer at this Realm's version, with its classes' custom representations.
    func eventJSON() -> EventJSON {
        let frozen = freeze()
        return EventJSON(snapshot: frozen.readSnapshot) { table, key in
            guard let info = frozen.tableInfo(forKey: table, expecting: Object.self),
                  info.classInfo.type is CustomEventRepresentable.Type else { return nil }
            return (frozen.accessor(info.classInfo.type, table: info, key: key) as? CustomEventRepresentable)?
                .customEventRepresentation()
        }
    }
}

/// The JSON of a write event, in Realm's shape (the DocC article on models and events): per
/// class, the inserted objects, the deleted ones at their state before the write, and the
/// modified ones with their old value and the fields that changed. Changes to embedded objects
/// count as modifications of their top-level owner; a collection change counts as a
/// modification of its owner.
struct WriteEvent {
    let json: String?

    init(instructions: [Instruction], before: EventJSON, after: EventJSON) {
        let summary = ChangesetSummary(instructions)
        var inserted: [TableKey: Set<ObjectKey>] = [:]
        var deleted: [TableKey: Set<ObjectKey>] = [:]
        var modified: [TableKey: Set<ObjectKey>] = [:]
        for (table, change) in summary.tables {
            let schema = after.snapshot.table(table)?.schema ?? before.snapshot.table(table)?.schema
            guard let schema else { continue }
            if schema.isEmbedded {
                for key in Set(change.insertions).union(change.deletions).union(change.modifications.keys) {
                    if let owner = Self.topOwner(table, key, in: after) ?? Self.topOwner(table, key, in: before) {
                        modified[owner.table, default: []].insert(owner.key)
                    }
                }
                continue
            }
            inserted[table, default: []].formUnion(Set(change.insertions).subtracting(change.deletions))
            deleted[table, default: []].formUnion(Set(change.deletions).subtracting(change.insertions))
            modified[table, default: []].formUnion(change.modifications.keys)
        }
        var classes: [String: Any] = [:]
        for table in Set(inserted.keys).union(deleted.keys).union(modified.keys) {
            let insertions = (inserted[table] ?? []).sorted()
            let deletions = (deleted[table] ?? []).filter { before.snapshot.table(table)?.contains($0) == true }.sorted()
            let modifications = (modified[table] ?? [])
                .subtracting(summary[table].insertions).subtracting(summary[table].deletions)
                .filter { before.snapshot.table(table)?.contains($0) == true && after.snapshot.table(table)?.contains($0) == true }
                .sorted()
            var entry: [String: Any] = [:]
            if !insertions.isEmpty { entry["insertions"] = insertions.map { after.object(table, $0) } }
            if !deletions.isEmpty { entry["deletions"] = deletions.map { before.object(table, $0) } }
            if !modifications.isEmpty {
                entry["modifications"] = modifications.map { key -> [String: Any] in
                    ["oldValue": before.object(table, key), "newValue": after.changedFields(table, key, from: before)]
                }
            }
            guard !entry.isEmpty, let name = (after.snapshot.table(table) ?? before.snapshot.table(table))?.schema.name
            else { continue }
            classes[name] = entry
        }
        json = classes.isEmpty ? nil : EventJSON.text(classes)
    }

    /// The top-level object that owns an embedded object, following owners up.
    static func topOwner(_ table: TableKey, _ key: ObjectKey, in json: EventJSON) -> (table: TableKey, key: ObjectKey)? {
        var current = (table: table, key: key)
        for _ in 0..<32 {
            guard let currentTable = json.snapshot.table(current.table) else { return nil }
            if !currentTable.schema.isEmbedded { return current }
            guard let owner = currentTable.backlinks(to: current.key).first else { return nil }
            current = (owner.table, owner.object)
        }
        return nil
    }
}
