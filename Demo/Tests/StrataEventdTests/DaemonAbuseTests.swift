#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Strata
@testable import StrataEventd
import StrataTestSupport
import Testing

/// Clients that misbehave, against the real process: the daemon answers, stays up, and stores
/// every event it acknowledged or was sent whole.
@Suite("strata-eventd under abuse", .serialized)
struct DaemonAbuseTests {
    /// The `stats` reply's fields.
    private func stats(_ daemon: DaemonProcess) throws -> [String: Any] {
        let client = try daemon.client()
        client.send(line: #"{"stats":true}"#)
        let line = try #require(client.readLine())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["stats"] as? [String: Any])
    }

    private func storedEvents(_ daemon: DaemonProcess) throws -> Realm {
        try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: daemon.dataPath), objectTypes: daemonObjectTypes))
    }

    @Test("100 clients that send 10 events and close without reading leave the daemon up, with all 1,000 events stored")
    func closeWithoutReading() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        for round in 0..<100 {
            let client = try daemon.client()
            client.send(Array((0..<10).map { eventLine("r\(round)-\($0)") + "\n" }.joined().utf8))
            client.close()
        }
        #expect(waitUntil(timeout: 60) { (try? stats(daemon)["stored"] as? Int) == 1_000 })
        #expect(daemon.isRunning)
        #expect(daemon.terminate() == 0)
        #expect(try storedEvents(daemon).objects(StoredEvent.self).count == 1_000)
    }

    @Test("a subscriber that goes away, by reset or by close, does not stop the daemon at the next commit")
    func subscriberGoesAway() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let writer = try daemon.client()
        for reset in [true, false] {
            let subscriber = try daemon.client()
            subscriber.send(line: #"{"subscribe":"TRUEPREDICATE"}"#)
            #expect(subscriber.readLine()?.hasPrefix(#"{"subscribed""#) == true)
            #expect(subscriber.readLine()?.hasPrefix(#"{"initial""#) == true)
            subscriber.close(reset: reset)
            for n in 0..<5 {
                writer.send(line: eventLine("gone-\(reset)-\(n)"))
                #expect(writer.readLine() == #"{"ack":"gone-\#(reset)-\#(n)"}"#)
            }
        }
        #expect(waitUntil(timeout: 60) { (try? stats(daemon)["subscribers"] as? Int) == 0 })
        #expect(daemon.terminate() == 0)
    }

    @Test("times and numbers out of range are refused with out_of_range and the daemon stays up")
    func outOfRange() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let client = try daemon.client()
        let times = ["1e300", "1e19", "-9.3e18", "9223372036854775807", "9.223372036854775807e18", "-1e300",
                     "-9223372036854775808", "253402300800", "18446744073709551616", "1e400"]
        for (n, time) in times.enumerated() {
            // Each twice: a client that retries must not crash-loop the daemon either.
            for _ in 0..<2 {
                client.send(line: #"{"id":"r\#(n)","type":"t","source":"s","time":\#(time)}"#)
                let reply = try #require(client.readLine())
                #expect(reply.contains(#""code":"out_of_range""#), "time \(time): \(reply)")
            }
        }
        client.send(line: eventLine("in-range"))
        #expect(client.readLine() == #"{"ack":"in-range"}"#)
        #expect(daemon.terminate() == 0)
        #expect(try storedEvents(daemon).objects(StoredEvent.self).map(\.id) == ["in-range"])
    }

    @Test("an attacker's events with keys the store refuses fail alone: the victim's 200 events are all stored and acknowledged")
    func attackerAndVictim() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let victim = try daemon.client()
        let attacker = try daemon.client()
        let bad = [#"{"a.b":1}"#, #"{"$where":1}"#, #"{"x":[{"y.z":1}]}"#]
        // Interleaved so that the attacker's lines arrive while the victim's are being batched.
        for part in 0..<2 {
            victim.send(Array((0..<100).map { eventLine("v\(part * 100 + $0)") + "\n" }.joined().utf8))
            attacker.send(Array(bad.enumerated().map { #"{"id":"a\#(part)-\#($0.offset)","type":"t","source":"s","time":1,"payload":\#($0.element)}"# + "\n" }.joined().utf8))
        }
        var acks = 0
        for _ in 0..<200 where victim.readLine()?.hasPrefix(#"{"ack""#) == true { acks += 1 }
        #expect(acks == 200)
        for _ in 0..<(2 * bad.count) {
            let reply = attacker.readLine()
            #expect(reply?.contains(#""code":"invalid_key""#) == true, "\(reply ?? "<closed>")")
        }
        #expect(daemon.terminate() == 0)
        #expect(try storedEvents(daemon).objects(StoredEvent.self).count == 200)
    }

    @Test("a failed subscribe leaves the subscriber count alone; a failed re-subscribe keeps the working subscription")
    func subscriptionState() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let failing = try daemon.client()
        for query in ["type ==", "nonsense here", "id == $9"] {
            failing.send(line: #"{"subscribe":"\#(query)"}"#)
            #expect(failing.readLine()?.contains(#""code":"bad_query""#) == true)
        }
        #expect(try stats(daemon)["subscribers"] as? Int == 0)

        let subscriber = try daemon.client()
        subscriber.send(line: #"{"subscribe":"type == 'login'"}"#)
        #expect(subscriber.readLine() == #"{"subscribed":1}"#)
        #expect(subscriber.readLine() == #"{"initial":{"count":0,"page":0,"objects":[],"last":true}}"#)
        subscriber.send(line: #"{"subscribe":"type =="}"#)
        #expect(subscriber.readLine()?.contains(#""code":"bad_query""#) == true)
        #expect(try stats(daemon)["subscribers"] as? Int == 1)
        // The first subscription still streams.
        let writer = try daemon.client()
        writer.send(line: eventLine("still-watched"))
        #expect(writer.readLine() == #"{"ack":"still-watched"}"#)
        #expect(subscriber.readLine()?.contains(#""inserted":[{"id":"still-watched""#) == true)
        #expect(daemon.terminate() == 0)
    }

    @Test("a JSON object that is no request gets unknown_request, not a complaint about a missing id")
    func unknownRequest() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let client = try daemon.client()
        for line in [#"{"hello":"world"}"#, "{}", #"{"subscribed":1}"#] {
            client.send(line: line)
            let reply = try #require(client.readLine())
            #expect(reply.contains(#""code":"unknown_request""#) && reply.contains("unknown request"), "\(reply)")
        }
        client.send(line: #"{"type":"login","source":"s","time":1}"#)
        #expect(client.readLine()?.contains("missing field 'id'") == true)
        #expect(daemon.terminate() == 0)
    }

    @Test("SIGHUP without a --config file changes nothing: the daemon keeps serving, then SIGTERM drains it cleanly")
    func sighup() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let client = try daemon.client()
        client.send(line: eventLine("before-hup"))
        #expect(client.readLine() == #"{"ack":"before-hup"}"#)
        for _ in 0..<3 { daemon.send(signal: SIGHUP) }
        client.send(line: eventLine("after-hup"))
        #expect(client.readLine() == #"{"ack":"after-hup"}"#)
        #expect(daemon.isRunning)
        #expect(daemon.terminate() == 0)
        #expect(try storedEvents(daemon).objects(StoredEvent.self).count == 2)
    }

    @Test("an HTTP request (what curl sends) gets one error line and a close; the daemon lives")
    func httpRequest() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let browser = try daemon.client()
        browser.send(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n".utf8))
        let reply = try #require(browser.readLine())
        #expect(reply.contains(#""code":"http_request""#), "\(reply)")
        #expect(browser.readLine() == nil)
        let client = try daemon.client()
        client.send(line: eventLine("after-http"))
        #expect(client.readLine() == #"{"ack":"after-http"}"#)
        #expect(daemon.terminate() == 0)
    }
}
