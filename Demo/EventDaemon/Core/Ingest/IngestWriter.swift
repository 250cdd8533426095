import Foundation
import Logging
import Strata

/// Stores events in group commits on a thread of its own: events queued by any connection are
/// taken in batches, each batch is one durable write transaction (and one audit record), and
/// every event's outcome is reported once the commit is durable.
///
/// The queue is bounded: ``submit(_:)`` refuses work when it is full, so a flood slows its
/// clients down (they get `overloaded`) instead of growing memory.
public final class IngestWriter: @unchecked Sendable {
    // Safety: `queue` is behind its lock; `thread` is set once in `start()` and read in `stop()`
    // on the starting thread; everything else is immutable.

    /// What happened to an event.
    public enum Outcome: Sendable, Equatable {
        /// Stored now.
        case stored
        /// Already stored (the id was seen before): stored once, acknowledged again.
        case duplicate
    }

    /// One event and where its outcome goes.
    public struct Submission: Sendable {
        /// The event to store.
        public let event: IncomingEvent
        /// Called once with the outcome, after the commit is durable (or refused).
        public let done: @Sendable (Result<Outcome, IngestRejection>) -> Void

        /// A submission of `event` reporting to `done`.
        public init(event: IncomingEvent, done: @escaping @Sendable (Result<Outcome, IngestRejection>) -> Void) {
            self.event = event
            self.done = done
        }
    }

    private struct Queue {
        var pending: [Submission] = []
        var stopping = false
    }

    private let configuration: Realm.Configuration
    private let config: DaemonConfig
    /// The alert rules and retention in force: the configuration's, until a reload replaces
    /// them (read by the writer thread at each commit).
    private let rules: Locked<(alerts: [DaemonConfig.AlertRule], retention: DaemonConfig.Retention)>
    private let logger: Logger
    private let queue = Locked(Queue())
    private let statistics: DaemonStatistics
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    private let onStoreFailure: @Sendable (String) -> Void
    private let failure = Locked<String?>(nil)

    /// Creates a writer; ``start()`` starts its thread.
    ///
    /// - Parameter onStoreFailure: called once, on the writer's thread, when the store refuses
    ///   every later write (a failed write or sync of its log, e.g. a full disk: see
    ///   ``storeFailure``). From then on every event is refused with `store_failed`.
    public init(configuration: Realm.Configuration, config: DaemonConfig, statistics: DaemonStatistics, logger: Logger,
                onStoreFailure: @escaping @Sendable (String) -> Void = { _ in }) {
        self.configuration = configuration
        self.config = config
        rules = Locked((config.alerts, config.retention))
        self.statistics = statistics
        self.logger = logger
        self.onStoreFailure = onStoreFailure
    }

    /// Why the store refuses writes, once it does: a write or sync of its commit log failed
    /// (Strata then refuses every later commit until the store is reopened, because the data of
    /// a failed sync may be gone from the disk). Every event acknowledged before is durable.
    public var storeFailure: String? { failure.withLockedValue { $0 } }

    /// Starts the writer thread.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "strata-ingest"
        thread.start()
        self.thread = thread
    }

    /// Queues as many of `submissions` as the bounded queue has room for, in order, and
    /// returns how many (0 once the writer is stopping).
    public func submit(_ submissions: [Submission]) -> Int {
        let accepted = queue.withLockedValue { queue -> Int in
            guard !queue.stopping else { return 0 }
            let room = max(0, min(submissions.count, config.maxQueue - queue.pending.count))
            queue.pending.append(contentsOf: submissions.prefix(room))
            return room
        }
        if accepted > 0 { queue.broadcast() }
        return accepted
    }

    /// Events queued and not yet committed.
    public var queueDepth: Int { queue.withLockedValue { $0.pending.count } }

    /// Commits what is queued, then stops the thread and waits for it.
    public func stop() {
        queue.withLockedValue { $0.stopping = true }
        queue.broadcast()
        if thread != nil { finished.wait() }
    }

    private func run() {
        defer { finished.signal() }
        let realm: Realm
        do {
            realm = try Realm(configuration: configuration)
        } catch {
            logger.critical("ingest writer cannot open the store: \(error)")
            failAll(.storeFailed("\(error)"))
            return
        }
        while true {
            let batch = queue.wait(until: { !$0.pending.isEmpty || $0.stopping }) { queue -> [Submission] in
                let count = min(queue.pending.count, config.maxBatch)
                defer { queue.pending.removeFirst(count) }
                return Array(queue.pending.prefix(count))
            }
            if batch.isEmpty { return }
            commit(batch, in: realm)
            if let failure = storeFailure {
                failAll(.storeFailed(failure))
                return
            }
            applyRetention(in: realm)
        }
    }

    /// Replaces the alert rules and the retention settings (a configuration reload); the commit
    /// in progress finishes with the old ones.
    func reload(alerts: [DaemonConfig.AlertRule], retention: DaemonConfig.Retention) {
        rules.withLockedValue { $0 = (alerts, retention) }
    }

    /// Deletes what the retention settings no longer keep, a batch at most (see
    /// ``prune(_:in:now:)``); a failure is logged, and retried after the next commit.
    private func applyRetention(in realm: Realm) {
        let retention = rules.withLockedValue { $0.retention }
        guard retention.isBounded else { return }
        do {
            let deleted = try Self.prune(retention, in: realm, now: Date())
            if deleted.events + deleted.alerts > 0 { statistics.noteDeleted(events: deleted.events, alerts: deleted.alerts) }
        } catch {
            logger.error("retention could not delete old events: \(error)")
        }
    }

    /// Stores one batch in one transaction and reports each event's outcome after the commit.
    /// When the batch fails, each of its events is retried in a transaction of its own, so that
    /// one event the store refuses fails alone and the others are stored.
    private func commit(_ batch: [Submission], in realm: Realm) {
        guard let error = commitTogether(batch, in: realm) else { return }
        if Self.refusesLaterWrites(error) {
            let reason = "\(error)"
            logger.critical("the store refuses writes from now on: \(reason)")
            for submission in batch { submission.done(.failure(.storeFailed(reason))) }
            statistics.noteRejected("store_failed", count: batch.count)
            failure.withLockedValue { $0 = reason }
            onStoreFailure(reason)
            return
        }
        guard batch.count > 1 else {
            logger.error("ingest commit failed: \(error)")
            batch[0].done(.failure(.storeFailed("\(error)")))
            statistics.noteRejected("store_failed")
            return
        }
        logger.warning("a group commit of \(batch.count) events failed (\(error)); committing them one by one")
        for submission in batch { commit([submission], in: realm) }
    }

    /// Stores `batch` in one transaction and reports each outcome; returns the error instead
    /// when the transaction failed (nothing of it was stored, nothing was reported).
    private func commitTogether(_ batch: [Submission], in realm: Realm) -> (any Error)? {
        let started = ContinuousClock.now
        var outcomes: [Outcome] = []
        do {
            try realm.write {
                let ids = batch.map(\.event.id)
                // Ids are compared by their bytes, as the primary key compares them: ids that are
                // the same text in two Unicode forms are two events (`Set<String>` would merge them,
                // acknowledge both and store one).
                var seen = Set(realm.objects(StoredEvent.self).filter("id IN $0", ids).map { UTF8Key($0.id) })
                var stored: [String] = []
                let now = Date()
                for submission in batch {
                    let event = submission.event
                    guard seen.insert(UTF8Key(event.id)).inserted else {
                        outcomes.append(.duplicate)
                        continue
                    }
                    let object = StoredEvent()
                    object.id = event.id
                    object.type = event.type
                    object.source = event.source
                    object.time = event.time
                    object.payload = event.payload.realmValue
                    object.receivedAt = now
                    realm.add(object)
                    stored.append(event.id)
                    outcomes.append(.stored)
                }
                raiseAlerts(for: stored, in: realm, at: now)
            }
        } catch {
            return error
        }
        let elapsed = ContinuousClock.now - started
        audit(batch, outcomes: outcomes, latency: elapsed, in: realm)
        statistics.noteCommit(batch: batch, outcomes: outcomes, latency: elapsed)
        for (submission, outcome) in zip(batch, outcomes) { submission.done(.success(outcome)) }
        return nil
    }

    /// Records the committed batch in the audit store (`<data>.events`, activity `ingest`, event
    /// `batch`): how many events it held, stored and duplicate, its first and last ids and the
    /// commit's time. One small record per group commit: the events themselves are in the store
    /// (an audit scope recorded every stored object again, an audit store as large as the data).
    private func audit(_ batch: [Submission], outcomes: [Outcome], latency: Duration, in realm: Realm) {
        guard let events = realm.events else { return }
        let stored = outcomes.count { $0 == .stored }
        let micros = latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000
        let record = JSONValue.object([
            "events": .int(Int64(batch.count)), "stored": .int(Int64(stored)),
            "duplicates": .int(Int64(batch.count - stored)), "commitMicros": .int(micros),
            "firstId": .string(Self.auditedID(batch.first?.event.id ?? "")),
            "lastId": .string(Self.auditedID(batch.last?.event.id ?? "")),
        ])
        events.recordEvent(activity: "ingest", eventType: "batch", data: record.text)
    }

    /// An id as the audit records it: up to 128 bytes, cut at a character and marked `…`.
    static func auditedID(_ id: String) -> String {
        guard id.utf8.count > 128 else { return id }
        var bytes = 0
        let kept = id.prefix { character in
            bytes += character.utf8.count
            return bytes <= 125
        }
        return kept + "…"
    }

    /// Whether `error` means the store refuses every later commit: its log could not be written
    /// or synced (the first such failure poisons it until it is reopened), so retrying an event
    /// cannot help and the writer stops.
    static func refusesLaterWrites(_ error: any Error) -> Bool {
        guard let underlying = (error as? Realm.Error)?.underlying ?? (error as? StrataError) else { return false }
        return underlying.code == .poisoned || underlying.code == .fileAccess
    }

    /// Creates an `Alert` for every newly stored event that matches an alert rule.
    private func raiseAlerts(for ids: [String], in realm: Realm, at now: Date) {
        guard !ids.isEmpty else { return }
        for rule in rules.withLockedValue({ $0.alerts }) {
            guard let matches = try? realm.objects(StoredEvent.self).filter(validating: "id IN $0 AND (\(rule.query))", arguments: [ids])
            else { continue }
            for event in matches {
                realm.add(Alert(value: ["id": "\(rule.name):\(event.id)", "rule": rule.name, "eventId": event.id,
                                        "createdAt": now] as [String: Any]))
            }
        }
    }

    private func failAll(_ rejection: IngestRejection) {
        while true {
            let batch = queue.wait(until: { !$0.pending.isEmpty || $0.stopping }) { queue -> [Submission] in
                defer { queue.pending.removeAll() }
                return queue.pending
            }
            if batch.isEmpty { return }
            for submission in batch { submission.done(.failure(rejection)) }
        }
    }
}
