import Foundation
import Strata
import StrataTestSupport
@testable import StrataEventd
import Testing

@Suite("strata-eventd end to end", .serialized)
struct DaemonEndToEndTests {
    @Test("ingest from two connections with a live subscription; every line answered in order")
    func ingestAndSubscribe() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        alerts:
          - name: big
            query: "payload['amount'] > 900"
        """)
        defer { daemon.terminate() }
        let subscriber = try daemon.client()
        subscriber.send(line: #"{"subscribe":"type == 'purchase'","sort":"id"}"#)
        #expect(subscriber.readLine() == #"{"subscribed":1}"#)
        #expect(subscriber.readLine() == #"{"initial":{"count":0,"page":0,"objects":[],"last":true}}"#)

        let report = try LoadGenerator(port: daemon.port, count: 500, connections: 2, idPrefix: "e2e").run()
        #expect(report.acknowledged == 500 && report.errors == 0)

        // 100 purchases arrive, possibly over several change sets, each an insertion.
        var inserted = 0
        while inserted < 100, let line = subscriber.readLine() {
            let update = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let body = try #require(update["update"] as? [String: Any])
            inserted += (body["inserted"] as? [Any])?.count ?? 0
        }
        #expect(inserted == 100)

        let stats = try daemon.client()
        stats.send(line: #"{"stats":true}"#)
        let reply = try #require(stats.readLine())
        #expect(reply.contains(#""stored":500"#) && reply.contains(#""subscribers":1"#))
        #expect(daemon.terminate() == 0)
        // Alerts were raised for amounts over 900 (n * 7919 % 1000 > 900).
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: daemon.dataPath),
                                                                 objectTypes: daemonObjectTypes))
        #expect(realm.objects(StoredEvent.self).count == 500)
        let expectedAlerts = (0..<500).filter { $0 * 7919 % 1000 > 900 }.count
        #expect(realm.objects(Alert.self).count == expectedAlerts)
    }

    @Test("kill -9 in the middle of ingest loses no acknowledged event; a restart resumes")
    func killAndRestart() throws {
        let path = DaemonProcess.temporaryPath()
        let daemon = try DaemonProcess(dataPath: path)
        let client = try daemon.client()
        let acknowledged = AckLog()
        let reader = Thread {
            while let line = client.readLine() { acknowledged.add(line) }
        }
        reader.start()
        for n in 0..<20_000 { client.send(line: eventLine("k\(n)")) }
        // Let part of it commit, then kill without warning.
        let deadline = ContinuousClock.now + DaemonProcess.patience
        while acknowledged.count < 2_000, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        daemon.kill()
        let acked = acknowledged.ids
        #expect(acked.count >= 2_000)

        let restarted = try DaemonProcess(dataPath: path)
        let again = try restarted.client()
        again.send(line: eventLine("after-restart"))
        #expect(again.readLine() == #"{"ack":"after-restart"}"#)
        #expect(restarted.terminate() == 0)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: daemonObjectTypes))
        let stored = Set(realm.objects(StoredEvent.self).map(\.id))
        #expect(acked.subtracting(stored).isEmpty, "lost \(acked.subtracting(stored).count) acknowledged events")
        #expect(stored.contains("after-restart"))
    }

    @Test("bad input is refused line by line, counted, and never stops the daemon or writes anything partial")
    func badInput() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        maxLineBytes: 512
        maxDepth: 8
        maxQueue: 50
        types: [login, purchase]
        """)
        defer { daemon.terminate() }
        let client = try daemon.client()
        let lines: [(String, String)] = [
            (#"{"id":"x1","type":"login""#, #""line":1"#),                                        // truncated JSON
            (String(repeating: "y", count: 600), "longer than 512 bytes"),                         // oversize
            (#"{"id":"x3","type":"login","source":"s","time":1,"payload":[[[[[[[[[1]]]]]]]]]}"#, "nested deeper"),
            (#"{"type":"login","source":"s","time":1}"#, "missing field 'id'"),
            (#"{"id":7,"type":"login","source":"s","time":1}"#, "field 'id' must be"),
            (#"{"id":"x6","type":"teleport","source":"s","time":1}"#, "unknown event type"),
            (eventLine("dup"), #"{"ack":"dup"}"#),
            (eventLine("dup"), #"{"ack":"dup","duplicate":true}"#),                                // stored once
            (#"{"subscribe":"type =="}"#, "invalid query: expected a value"),
        ]
        for (line, _) in lines { client.send(line: line) }
        client.send([0x7B, 0xFF, 0xFE, 0x7D, 0x0A])                                               // invalid UTF-8
        var replies: [String] = []
        for _ in 0..<(lines.count + 1) { replies.append(client.readLine() ?? "<closed>") }
        for (index, (_, expected)) in lines.enumerated() {
            #expect(replies[index].contains(expected), "line \(index + 1): \(replies[index])")
        }
        #expect(replies.last?.contains("not valid UTF-8") == true)

        // A client that disconnects in the middle of a line.
        let quitter = try daemon.client()
        quitter.send(Array(#"{"id":"half","type":"lo"#.utf8))
        quitter.finishSending()
        // A half-closed client still gets its answers, then the daemon closes.
        #expect(quitter.readLine()?.contains("the connection closed in the middle of a line") == true)
        #expect(quitter.readLine() == nil)

        // A client that sends its lines and ends its input gets every ack before the close.
        let oneShot = try daemon.client()
        oneShot.send(Array((eventLine("one-shot-1") + "\n" + eventLine("one-shot-2") + "\n").utf8))
        oneShot.finishSending()
        #expect(oneShot.readLine() == #"{"ack":"one-shot-1"}"# && oneShot.readLine() == #"{"ack":"one-shot-2"}"#)
        #expect(oneShot.readLine() == nil)

        // A flood beyond the queue bound gets "overloaded" for some lines, acks for the rest.
        let flood = try daemon.client()
        flood.send(Array((0..<2_000).map { eventLine("f\($0)") + "\n" }.joined().utf8))
        var floodReplies: [String] = []
        for _ in 0..<2_000 { floodReplies.append(flood.readLine() ?? "<closed>") }
        let unexpected = floodReplies.filter { !$0.hasPrefix(#"{"ack""#) && !$0.contains("queue is full") }
        #expect(unexpected.isEmpty, "\(unexpected.prefix(3))")
        #expect(floodReplies.contains { $0.hasPrefix(#"{"ack""#) } && floodReplies.contains { $0.contains("queue is full") })

        // Still serving, and nothing partial was written.
        let after = try daemon.client()
        after.send(line: eventLine("still-alive"))
        #expect(after.readLine() == #"{"ack":"still-alive"}"#)
        after.send(line: #"{"stats":true}"#)
        let stats = try #require(after.readLine())
        for code in ["overloaded", "malformed", "too_large", "too_deep", "missing_field", "mistyped_field", "unknown_type", "invalid_utf8", "truncated"] {
            #expect(stats.contains("\"\(code)\""), "\(code) not counted: \(stats)")
        }
        #expect(daemon.terminate() == 0)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: daemon.dataPath),
                                                                 objectTypes: daemonObjectTypes))
        #expect(realm.objects(StoredEvent.self).filter("id == 'dup'").count == 1)
        #expect(realm.objects(StoredEvent.self).filter("id IN {'x1', 'x3', 'x6', 'half'}").isEmpty)
        let acked = floodReplies.filter { $0.hasPrefix(#"{"ack""#) }.count
        #expect(realm.objects(StoredEvent.self).filter("id BEGINSWITH 'f'").count == acked)
    }

    @Test("--demo stops cleanly on SIGTERM: its generator and subscriber, cut off by the drain, log no error")
    func demoStopsCleanly() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), extraArguments: ["--demo"])
        // Stop in the middle of a generator round: its connections are closed under it.
        #expect(waitUntil(timeout: 60) { ((try? daemon.stats()["stored"]) as? Int ?? 0) > 100 })
        #expect(daemon.terminate() == 0)
        let log = (try? String(contentsOfFile: daemon.dataPath + ".log", encoding: .utf8)) ?? ""
        #expect(!log.contains(" error "), "\(log.suffix(2_000))")
    }

    @Test("SIGTERM drains: every event received before it is stored and acknowledged, and the exit is clean")
    func sigtermDrains() throws {
        let path = DaemonProcess.temporaryPath()
        let socketPath = FileManager.default.temporaryDirectory.appendingPathComponent("eventd-\(UUID().uuidString.prefix(6)).sock").path
        let daemon = try DaemonProcess(dataPath: path, socketPath: socketPath)
        let client = try LineClient(unixPath: socketPath, timeout: DaemonProcess.patience)
        for n in 0..<300 { client.send(line: eventLine("t\(n)")) }
        // Wait for the first ack so the lines were read, then stop.
        #expect(client.readLine()?.hasPrefix(#"{"ack""#) == true)
        #expect(daemon.terminate() == 0)
        var acks = 1
        while let line = client.readLine(), line.hasPrefix(#"{"ack""#) { acks += 1 }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: daemonObjectTypes))
        #expect(realm.objects(StoredEvent.self).count >= acks)
    }
}

private final class AckLog: @unchecked Sendable {
    // Safety: guarded by `lock`.
    private let lock = NSLock()
    private var acked = Set<String>()
    func add(_ line: String) {
        guard line.hasPrefix(#"{"ack":""#) else { return }
        let id = String(line.dropFirst(8).dropLast(2))
        lock.withLock { _ = acked.insert(id) }
    }
    var count: Int { lock.withLock { acked.count } }
    var ids: Set<String> { lock.withLock { acked } }
}
