import Foundation
import StrataTestSupport
@testable import StrataEventd
import Testing

@Suite("strata-eventd ctl: a client for operators", .serialized)
struct DaemonControlTests {
    @Test("ping, version, send (with a refused line), stats, alerts and subscribe against a running daemon")
    func commands() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        alerts:
          - name: big
            query: "payload['amount'] > 900"
        """)
        defer { daemon.terminate() }
        let port = ["--port", String(daemon.port)]
        let ping = try DaemonProcess.control(["ping"] + port)
        #expect(ping.status == 0 && ping.output.hasPrefix("pong in "), "\(ping.output) \(ping.error)")

        let events = [eventLine("c1", type: "purchase", amount: 950), eventLine("c1", type: "purchase", amount: 950),
                      #"{"id":"c2"}"#, eventLine("c3")].joined(separator: "\n")
        let send = try DaemonProcess.control(["send"] + port, input: events)
        #expect(send.status == 1, "a refused line fails the command")
        #expect(send.output == "sent 4, acknowledged 3 (1 duplicate), refused 1\n", "\(send.output)")
        #expect(send.error.contains("line 3: missing field 'type'"), "\(send.error)")

        let stats = try DaemonProcess.control(["stats"] + port)
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any])
        #expect((reply["stats"] as? [String: Any])?["stored"] as? Int == 2, "\(stats.output)")

        let alerts = try DaemonProcess.control(["alerts", "--rule", "big"] + port)
        #expect(alerts.lines.count == 1 && alerts.output.contains(#""eventId":"c1""#), "\(alerts.output)")

        // subscribe runs until stopped: its first lines, then SIGTERM.
        let subscriber = Process()
        subscriber.executableURL = try DaemonProcess.locate()
        subscriber.arguments = ["ctl", "subscribe", "type == 'login'"] + port
        subscriber.environment = childProcessEnvironment()
        let output = Pipe()
        subscriber.standardOutput = output
        try subscriber.run()
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        subscriber.terminate()
        #expect(subscriber.waitForExit(timeout: .seconds(10)) == -SIGTERM, "SIGTERM ends ctl subscribe")
        _ = subscriber.finish(within: .seconds(10))
        #expect(String(decoding: received, as: UTF8.self).hasPrefix(#"{"initial":{"count":1"#), "piped: the protocol's lines")

        let unreachable = try DaemonProcess.control(["stats", "--port", "1"])
        #expect(unreachable.status == 1 && unreachable.error.contains("cannot reach strata-eventd at 127.0.0.1:1"),
                "\(unreachable.error)")
    }
}
