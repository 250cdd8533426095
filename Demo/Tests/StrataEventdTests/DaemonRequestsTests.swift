import Foundation
import Strata
import StrataTestSupport
@testable import StrataEventd
import Testing

@Suite("strata-eventd: ping, version, alerts read back, duplicates and unsubscribe by number", .serialized)
struct DaemonRequestsTests {
    @Test("ping and version answer; a duplicate's ack says so; alerts read back newest first, by rule, and count in stats")
    func requests() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        alerts:
          - name: big
            query: "payload['amount'] > 900"
          - name: login
            query: "type == 'login'"
        """)
        defer { daemon.terminate() }
        let client = try daemon.client()
        client.send(line: #"{"ping":true}"#)
        #expect(client.readLine() == #"{"pong":true}"#)
        client.send(line: #"{"version":true}"#)
        #expect(client.readLine() == #"{"version":{"daemon":"\#(Strata.version)","protocol":2}}"#)

        let purchase = #"{"id":"p1","type":"purchase","source":"web","time":1700000000,"payload":{"amount":950}}"#
        client.send(line: purchase)
        #expect(client.readLine() == #"{"ack":"p1"}"#)
        client.send(line: purchase)
        #expect(client.readLine() == #"{"ack":"p1","duplicate":true}"#)
        client.send(line: #"{"id":"l1","type":"login","source":"web","time":1700000001}"#)
        #expect(client.readLine() == #"{"ack":"l1"}"#)

        client.send(line: #"{"alerts":true}"#)
        let all = try Self.alerts(try #require(client.readLine()))
        #expect(all.map { $0["rule"] as? String } == ["login", "big"], "newest first")
        #expect(all.last?["eventId"] as? String == "p1")
        client.send(line: #"{"alerts":{"rule":"big","limit":5}}"#)
        #expect(try Self.alerts(try #require(client.readLine())).map { $0["id"] as? String } == ["big:p1"])
        client.send(line: #"{"alerts":{"rule":"big","limit":0}}"#)
        #expect(client.readLine()?.contains(#""code":"mistyped_field""#) == true)
        client.send(line: #"{"stats":true}"#)
        #expect(client.readLine()?.contains(#""alerts":2"#) == true)
        client.send(line: #"{"stats":false}"#)
        #expect(client.readLine()?.contains(#""code":"mistyped_field""#) == true)
    }

    @Test("unsubscribe takes the number subscribed gave; another number is refused and the subscription stays")
    func unsubscribeByNumber() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let client = try daemon.client()
        client.send(line: #"{"subscribe":"type == 'login'"}"#)
        #expect(client.readLine() == #"{"subscribed":1}"#)
        _ = client.readLine()  // the initial result
        client.send(line: #"{"unsubscribe":7}"#)
        let refused = try #require(client.readLine())
        #expect(refused.contains(#""code":"unknown_subscription""#) && refused.contains(#""line":2"#), "\(refused)")
        client.send(line: #"{"unsubscribe":1}"#)
        #expect(client.readLine() == #"{"unsubscribed":3}"#)
    }

    private static func alerts(_ line: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["alerts"] as? [[String: Any]])
    }
}
