import Foundation
import Strata

extension IngestWriter {
    /// Deletes what `retention` no longer keeps: the oldest events past `maxEvents` or received
    /// more than `maxAgeSeconds` ago, and the oldest alerts past `maxAlerts` or older than that,
    /// at most `batchSize` of each class, in one write transaction. Objects are added in the
    /// order they are received and a query without a sort reads them in that order, so the
    /// oldest are the first ones: no sort, no index, `batchSize` objects read.
    ///
    /// - Returns: how many events and alerts it deleted.
    @discardableResult
    static func prune(_ retention: DaemonConfig.Retention, in realm: Realm, now: Date) throws -> (events: Int, alerts: Int) {
        guard retention.isBounded else { return (0, 0) }
        let cutoff = retention.maxAgeSeconds.map { now.addingTimeInterval(-Double($0)) }
        let events = doomed(realm.objects(StoredEvent.self), keeping: retention.maxEvents, batch: retention.batchSize) { event in
            cutoff.map { event.receivedAt < $0 } ?? false
        }
        let alerts = doomed(realm.objects(Alert.self), keeping: retention.maxAlerts, batch: retention.batchSize) { alert in
            cutoff.map { alert.createdAt < $0 } ?? false
        }
        guard !events.isEmpty || !alerts.isEmpty else { return (0, 0) }
        try realm.write {
            realm.delete(events)
            realm.delete(alerts)
        }
        return (events.count, alerts.count)
    }

    /// The oldest objects to delete: those past `keeping` in number, then those `isExpired`
    /// says are too old, at most `batch`.
    private static func doomed<T: Object>(_ objects: Results<T>, keeping: Int?, batch: Int,
                                           isExpired: (T) -> Bool) -> [T] {
        var excess = keeping.map { max(0, objects.count - $0) } ?? 0
        var doomed: [T] = []
        for object in objects.prefix(batch) {
            if excess > 0 {
                excess -= 1
            } else if !isExpired(object) {
                break
            }
            doomed.append(object)
        }
        return doomed
    }
}
