import Foundation
import StrataEngine

/// What one active scope has recorded so far.
///
/// Reads are combined as Realm core's `ReadCombiner` does: a query records every matched row;
/// later queries and single-object reads of the same class at the same version fold into that
/// query's event until another read intervenes; a repeated read of the same object is dropped;
/// otherwise each single-object read is its own event. Objects are serialized when they are
/// read, at the version they were read at.
final class EventRecorder {
    let activity: String
    let metadata: [String: String]
    private(set) var rows: [EventRow] = []
    private var open: OpenRead?

    private struct OpenRead {
        let className: String
        let version: UInt64
        let isQuery: Bool
        var objects: [ObjectKey: Any]
    }

    init(activity: String, metadata: [String: String]) {
        self.activity = activity
        self.metadata = metadata
    }

    /// Records the rows a query matched.
    func recordQuery(className: String, version: UInt64, objects: [(ObjectKey, Any)]) {
        if var current = open, current.isQuery, current.className == className, current.version == version {
            for (key, json) in objects where current.objects[key] == nil { current.objects[key] = json }
            open = current
            return
        }
        flushRead()
        open = OpenRead(className: className, version: version, isQuery: true,
                        objects: Dictionary(objects, uniquingKeysWith: { first, _ in first }))
    }

    /// Records a read of one object.
    func recordRead(className: String, version: UInt64, key: ObjectKey, json: () -> Any) {
        if var current = open, current.className == className, current.version == version {
            if current.objects[key] != nil { return }
            if current.isQuery {
                current.objects[key] = json()
                open = current
                return
            }
        }
        flushRead()
        open = OpenRead(className: className, version: version, isQuery: false, objects: [key: json()])
    }

    /// Records a write event's JSON data.
    func recordWrite(_ data: String) {
        flushRead()
        rows.append(EventRow(activity: activity, event: "write", data: data, timestamp: Date(), metadata: metadata))
    }

    /// Ends the open read event and returns every event, in order.
    func finish() -> [EventRow] {
        flushRead()
        return rows
    }

    private func flushRead() {
        guard let current = open else { return }
        open = nil
        let values = current.objects.sorted { $0.key < $1.key }.map(\.value)
        guard !values.isEmpty else { return }
        let data = EventJSON.text(["type": current.className, "value": values] as [String: Any])
        rows.append(EventRow(activity: activity, event: "read", data: data, timestamp: Date(), metadata: metadata))
    }
}
