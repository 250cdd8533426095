import Foundation
import Strata
@testable import StrataEventd
import StrataTestSupport
import Testing

/// A connection that records the lines a subscription sends (on the loop thread).
private final class RecordingConnection: ClientConnection, @unchecked Sendable {
    // Safety: `lines` is guarded by `lock`; the rest is used on the loop thread only.
    private let lock = NSLock()
    private var lines: [String] = []

    func send(_ line: String) { send(line, whenWritten: nil) }
    func send(_ line: String, whenWritten: (() -> Void)?) {
        lock.withLock { lines.append(line) }
        whenWritten?()
    }
    var queuedBytes: Int { 0 }
    var deliveredBytes: Int { 0 }
    func dropSlowReader() {}
    func dropStalledReader(stalledFor seconds: Int) {}
    func close() {}
    var sent: [String] { lock.withLock { lines } }
}

/// A loop with the daemon's Realm and shared queries on it, and a Realm that writes from the test.
private final class SharedQueryFixture: @unchecked Sendable {
    // Safety: `subscriptions` and `queries` are used on the loop thread only (through `onLoop`).
    let loop: LibUVEventLoop
    let writer: Realm
    private let configuration: Realm.Configuration
    private var realm: Realm?
    private(set) var queries: SharedQueries?
    private var subscriptions: [Subscription] = []

    init() throws {
        configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: daemonObjectTypes)
        writer = try Realm(configuration: configuration)
        loop = try LibUVEventLoop.startThread(name: "shared-query-test")
        try onLoop {
            self.realm = try Realm(configuration: self.configuration)
            self.queries = SharedQueries(loop: self.loop)
        }
    }

    deinit { loop.shutdownAndWait() }

    /// Runs `body` on the loop thread and waits for it.
    func onLoop<T>(_ body: @escaping () throws -> T) throws -> T {
        let result = UncheckedBox<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let work = UncheckedBox<(() throws -> T)?>(body)
        loop.execute {
            result.value = Result { try work.value!() }
            // Release the closure (and the fixture it holds) here, not last on the loop thread.
            work.value = nil
            done.signal()
        }
        done.wait()
        return try result.value!.get()
    }

    func subscribe(_ query: String, to connection: RecordingConnection) throws {
        try onLoop {
            self.subscriptions.append(try Subscription(realm: self.realm!, query: query, sort: nil, ascending: true,
                                                       keyPaths: nil, limits: DaemonLimits(), queries: self.queries!,
                                                       connection: connection) { _ in })
        }
    }

    func cancelAll() throws {
        try onLoop {
            for subscription in self.subscriptions { subscription.cancel() }
            self.subscriptions.removeAll()
        }
    }

    func add(_ ids: some Sequence<Int>) throws {
        try writer.write {
            for id in ids {
                writer.add(StoredEvent(value: ["id": "e\(id)", "type": "login", "source": "s", "time": Date(),
                                               "payload": AnyRealmValue.none, "receivedAt": Date()]))
            }
        }
    }
}

@Suite("Subscriptions share their query")
struct SharedQueryTests {
    @Test("fifty subscriptions of one query share one notifier and one update line; another query reuses the events' texts")
    func oneQueryManyMembers() throws {
        let fixture = try SharedQueryFixture()
        let connections = (0..<51).map { _ in RecordingConnection() }
        for (index, connection) in connections.enumerated() {
            try fixture.subscribe(index < 50 ? "TRUEPREDICATE" : "type == 'login'", to: connection)
        }
        #expect(try fixture.onLoop { fixture.queries!.count } == 2)
        #expect(waitUntil(timeout: 30) { connections.allSatisfy { $0.sent.count == 1 } })
        try fixture.add(0..<20)
        #expect(waitUntil(timeout: 30) { connections.allSatisfy { $0.sent.count == 2 } })
        let updates = connections.map { $0.sent.last ?? "" }
        #expect(updates[0].hasPrefix(#"{"update":{"deletions":[],"insertions":[0, 1, "#))
        #expect(Set(updates).count == 1, "the two queries match the same events, so every line is the same")
        let counts = try fixture.onLoop { (fixture.queries!.serialization.built, fixture.queries!.serialization.reused) }
        // 20 event texts built for the first query's line; the second query's line reuses them.
        #expect(counts == (20, 20), "\(counts)")
        try fixture.cancelAll()
        #expect(try fixture.onLoop { fixture.queries!.count } == 0)
    }

    @Test("a subscriber that joins a running query gets the current result, then the updates that follow it")
    func latecomer() throws {
        let fixture = try SharedQueryFixture()
        let first = RecordingConnection(), late = RecordingConnection()
        try fixture.subscribe("TRUEPREDICATE", to: first)
        #expect(waitUntil(timeout: 30) { first.sent.count == 1 })
        try fixture.add(0..<5)
        #expect(waitUntil(timeout: 30) { first.sent.count == 2 })
        try fixture.subscribe("TRUEPREDICATE", to: late)
        #expect(try fixture.onLoop { fixture.queries!.count } == 1)
        #expect(waitUntil(timeout: 30) { late.sent.count == 1 })
        #expect(late.sent.first?.hasPrefix(#"{"initial":{"count":5,"#) == true, "\(late.sent)")
        try fixture.add(5..<6)
        #expect(waitUntil(timeout: 30) { late.sent.count == 2 && first.sent.count == 3 })
        #expect(late.sent.last?.hasPrefix(#"{"update":{"deletions":[],"insertions":[5],"#) == true, "\(late.sent)")
        #expect(late.sent.last == first.sent.last)
        try fixture.cancelAll()
    }
}
