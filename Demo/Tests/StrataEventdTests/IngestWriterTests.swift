import Foundation
import Logging
import Strata
@testable import StrataEventd
import Testing

@Suite("Ingest writer")
struct IngestWriterTests {
    private func event(_ id: String, type: String = "purchase", amount: Int = 1) -> IncomingEvent {
        IncomingEvent(id: id, type: type, source: "shop", time: Date(timeIntervalSince1970: 1_700_000_000),
                      payload: .object(["amount": .int(Int64(amount))]))
    }

    @Test("events are stored once per id in group commits, alerts fire for matching events, and every batch is audited")
    func storesOnceAndRaisesAlerts() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: daemonObjectTypes)
        configuration.eventConfiguration = EventConfiguration(metadata: ["daemon": "test"])
        let keeper = try Realm(configuration: configuration)
        var config = DaemonConfig()
        config.alerts = [.init(name: "big", query: "payload['amount'] > 100")]
        let statistics = DaemonStatistics(windowSeconds: 60)
        let writer = IngestWriter(configuration: configuration, config: config, statistics: statistics,
                                  logger: Logger(label: "test"))
        writer.start()
        let outcomes = OutcomeRecorder()
        let events = [event("a"), event("b", amount: 500), event("a"), event("c")]
        for batch in [Array(events.prefix(2)), Array(events.suffix(2)), [event("b")]] {
            let submissions = outcomes.submissions(batch)
            #expect(writer.submit(submissions) == submissions.count)
        }
        outcomes.wait()
        writer.stop()
        #expect(outcomes.all.map { "\($0.0):\($0.1)" }.sorted()
                == ["a:duplicate", "a:stored", "b:duplicate", "b:stored", "c:stored"])
        keeper.refresh()
        #expect(keeper.objects(StoredEvent.self).count == 3)
        #expect(keeper.objects(Alert.self).map(\.id) == ["big:b"])
        #expect(keeper.object(ofType: StoredEvent.self, forPrimaryKey: "b")?.payload.dictionaryValue?["amount"]?.intValue == 500)
        let snapshot = statistics.snapshot(queueDepth: writer.queueDepth)
        guard case .object(let fields) = snapshot else { Issue.record("stats"); return }
        #expect(fields["stored"] == .int(3) && fields["duplicates"] == .int(2))
        #expect(fields["byType"] == .object(["purchase": .int(3)]))
    }

    @Test("RQL reaches into mixed payload maps")
    func payloadQueries() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: daemonObjectTypes))
        try realm.write {
            let object = StoredEvent()
            object.id = "x"
            object.payload = JSONValue.object(["amount": .int(500)]).realmValue
            realm.add(object)
        }
        for query in ["payload['amount'] > 100", "id IN $0 AND (payload['amount'] > 100)"] {
            let results = try realm.objects(StoredEvent.self).filter(validating: query, arguments: [["x"]])
            #expect(results.count == 1, "\(query)")
        }
    }

    @Test("a group commit that the store refuses is retried event by event: every valid event is stored and acknowledged, only the bad one fails")
    func oneBadEventFailsAlone() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: daemonObjectTypes)
        let keeper = try Realm(configuration: configuration)
        let writer = IngestWriter(configuration: configuration, config: DaemonConfig(),
                                  statistics: DaemonStatistics(windowSeconds: 60), logger: Logger(label: "test"))
        var events = (0..<40).map { event("v\($0)") }
        // Built by hand: the parser would refuse these keys before they reach a batch.
        var bad = event("bad")
        bad.payload = .object(["a.b": .int(1)])
        events.insert(bad, at: 17)
        var dollar = event("dollar")
        dollar.payload = .object(["nested": .object(["$set": .int(1)])])
        events.insert(dollar, at: 30)
        let outcomes = OutcomeRecorder()
        let submissions = outcomes.submissions(events)
        // Queued before the writer starts, so that they form one batch.
        #expect(writer.submit(submissions) == submissions.count)
        writer.start()
        outcomes.wait()
        writer.stop()
        let byId = Dictionary(uniqueKeysWithValues: outcomes.all)
        #expect(byId["bad"] == "store_failed" && byId["dollar"] == "store_failed")
        #expect((0..<40).allSatisfy { byId["v\($0)"] == "stored" }, "\(byId)")
        keeper.refresh()
        #expect(keeper.objects(StoredEvent.self).count == 40)
    }

    @Test("what the parser accepts at its edges the store takes: unusual keys, deepest payload, extreme times")
    func parserEdgesAreStored() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: daemonObjectTypes)
        let keeper = try Realm(configuration: configuration)
        let parser = RequestParser(maxDepth: 200)
        let deepest = String(repeating: "[", count: RequestParser.maximumPayloadNesting)
            + String(repeating: "]", count: RequestParser.maximumPayloadNesting)
        let lines = [
            #"{"id":"keys","type":"t","source":"s","time":1,"payload":{"a$":1,"":2,"\u0000":3,"é":{"x$y":[4]},"🙂":5}}"#,
            #"{"id":"deep","type":"t","source":"s","time":1,"payload":\#(deepest)}"#,
            #"{"id":"first","type":"t","source":"s","time":-62135769600}"#,
            #"{"id":"last","type":"t","source":"s","time":253402300799.999}"#,
            #"{"id":"big","type":"t","source":"s","time":1,"payload":{"i":9223372036854775807,"j":-9223372036854775808,"d":1.7976931348623157e308}}"#,
        ]
        var events: [IncomingEvent] = []
        for line in lines {
            switch Result(catching: { () throws(IngestRejection) in try parser.parse(Array(line.utf8)) }) {
            case .success(.event(let event)): events.append(event)
            case .success: Issue.record("not an event: \(line)")
            case .failure(let rejection): Issue.record("\(line): \(rejection)")
            }
        }
        let writer = IngestWriter(configuration: configuration, config: DaemonConfig(),
                                  statistics: DaemonStatistics(windowSeconds: 60), logger: Logger(label: "test"))
        let outcomes = OutcomeRecorder()
        let submissions = outcomes.submissions(events)
        #expect(writer.submit(submissions) == submissions.count)
        writer.start()
        outcomes.wait()
        writer.stop()
        #expect(outcomes.all.allSatisfy { $0.1 == "stored" }, "\(outcomes.all)")
        keeper.refresh()
        for event in events {
            let stored = keeper.object(ofType: StoredEvent.self, forPrimaryKey: event.id)
            #expect(stored.map { JSONValue($0.payload) } == event.payload, "\(event.id)")
            #expect(stored.map { abs($0.time.timeIntervalSince(event.time)) < 1e-6 } == true, "\(event.id)")
        }
    }

    @Test("a full queue refuses new work instead of growing")
    func backpressure() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: daemonObjectTypes)
        var config = DaemonConfig()
        config.maxQueue = 2
        let writer = IngestWriter(configuration: configuration, config: config,
                                  statistics: DaemonStatistics(windowSeconds: 60), logger: Logger(label: "test"))
        // Not started: nothing drains the queue.
        let submissions = (0..<3).map { IngestWriter.Submission(event: event("\($0)")) { _ in } }
        #expect(writer.submit(Array(submissions.prefix(1))) == 1)
        #expect(writer.submit(Array(submissions.suffix(2))) == 1)
        #expect(writer.queueDepth == 2)
    }
}

/// Makes submissions whose outcomes it records, and waits for all of them.
private final class OutcomeRecorder: @unchecked Sendable {
    // Safety: `values` is only touched under `lock`; `done` is thread-safe.
    private let lock = NSLock()
    private var values: [(String, String)] = []
    private let done = DispatchGroup()

    /// One submission per event, each recording its outcome (as the outcome or the rejection code).
    func submissions(_ events: [IncomingEvent]) -> [IngestWriter.Submission] {
        events.map { incoming in
            done.enter()
            return IngestWriter.Submission(event: incoming) { result in
                let text = switch result {
                case .success(let outcome): "\(outcome)"
                case .failure(let rejection): rejection.code
                }
                self.lock.withLock { self.values.append((incoming.id, text)) }
                self.done.leave()
            }
        }
    }

    /// Waits until every submission made so far has its outcome.
    func wait() { done.wait() }

    /// (event id, outcome) in the order the outcomes arrived.
    var all: [(String, String)] { lock.withLock { values } }
}
