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
        let outcomes = LockedOutcomes()
        let done = DispatchGroup()
        let events = [event("a"), event("b", amount: 500), event("a"), event("c")]
        for batch in [Array(events.prefix(2)), Array(events.suffix(2)), [event("b")]] {
            let submissions = batch.map { incoming in
                done.enter()
                return IngestWriter.Submission(event: incoming) { result in
                    outcomes.append(incoming.id, result)
                    done.leave()
                }
            }
            #expect(writer.submit(submissions) == submissions.count)
        }
        done.wait()
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
            let results = try realm.objects(StoredEvent.self).filter(validating: query, [["x"]])
            #expect(results.count == 1, "\(query)")
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

private final class LockedOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [(String, String)] = []
    func append(_ id: String, _ result: Result<IngestWriter.Outcome, IngestRejection>) {
        let text = switch result {
        case .success(let outcome): "\(outcome)"
        case .failure(let rejection): rejection.code
        }
        lock.withLock { values.append((id, text)) }
    }
    var all: [(String, String)] { lock.withLock { values } }
}
