import Foundation
import Logging
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
    func dropSlowReader() {}
    func close() {}
    var sent: [String] { lock.withLock { lines } }
}

@Suite("Shared serialization of subscription updates")
struct SharedSerializationTests {
    @Test("fifty subscriptions of one query get one update line built once; a second query reuses the events' texts")
    func oneSerializationPerCommit() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: daemonObjectTypes)
        let keeper = try Realm(configuration: configuration)
        let loop = try LibUVEventLoop.startThread(name: "shared-serialization-test")
        defer { loop.shutdownAndWait() }
        let connections = (0..<51).map { _ in RecordingConnection() }
        let state = UncheckedBox<(Realm, [Subscription], SharedSerialization)?>(nil)
        let ready = DispatchSemaphore(value: 0)
        loop.execute {
            do {
                let realm = try Realm(configuration: configuration)
                let shared = SharedSerialization(loop: loop)
                let subscriptions = try connections.enumerated().map { index, connection in
                    try Subscription(realm: realm, query: index < 50 ? "TRUEPREDICATE" : "type == 'login'", sort: nil,
                                     ascending: true, keyPaths: nil, limits: DaemonLimits(), shared: shared,
                                     connection: connection) {}
                }
                state.value = (realm, subscriptions, shared)
            } catch {
                Issue.record("\(error)")
            }
            ready.signal()
        }
        ready.wait()
        #expect(waitUntil(timeout: 30) { connections.allSatisfy { $0.sent.count == 1 } })
        try keeper.write {
            for id in 0..<20 {
                keeper.add(StoredEvent(value: ["id": "e\(id)", "type": "login", "source": "s", "time": Date(),
                                               "payload": AnyRealmValue.none, "receivedAt": Date()]))
            }
        }
        #expect(waitUntil(timeout: 30) { connections.allSatisfy { $0.sent.count == 2 } })
        let updates = connections.map { $0.sent.last ?? "" }
        #expect(updates[0].hasPrefix(#"{"update":{"deletions":[],"insertions":[0, 1, "#))
        #expect(Set(updates).count == 1, "the two queries match the same events, so every line is the same")
        let counts = UncheckedBox<(built: Int, reused: Int)>((0, 0))
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            if let shared = state.value?.2 { counts.value = (shared.built, shared.reused) }
            for subscription in state.value?.1 ?? [] { subscription.cancel() }
            state.value = nil
            done.signal()
        }
        done.wait()
        // 20 event texts and 2 lines (one per query) built; 49 lines and 20 event texts reused.
        #expect(counts.value.built == 22, "\(counts.value)")
        #expect(counts.value.reused == 69, "\(counts.value)")
    }
}
