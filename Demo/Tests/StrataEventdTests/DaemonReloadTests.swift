import Foundation
import StrataTestSupport
@testable import StrataEventd
import Testing

@Suite("strata-eventd reloads its configuration on SIGHUP", .serialized)
struct DaemonReloadTests {
    /// Waits (at most the daemon's patience) until its log contains `text`.
    private func waitForLog(_ daemon: DaemonProcess, _ text: String) -> Bool {
        let deadline = ContinuousClock.now + DaemonProcess.patience
        while ContinuousClock.now < deadline {
            if daemon.log.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    @Test("new types and alert rules apply to the connections and subscriptions already open; a bad file changes nothing")
    func reloadsTypesAndAlerts() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        types: [login]
        alerts:
          - {name: logins, query: "type == 'login'"}
        """, logLevel: "notice")
        defer { daemon.terminate() }
        let client = try daemon.client()
        let subscriber = try daemon.client()
        subscriber.send(line: #"{"subscribe":"TRUEPREDICATE"}"#)
        #expect(subscriber.readLine() == #"{"subscribed":1}"#)
        _ = subscriber.readLine()  // the initial result
        client.send(line: eventLine("p0", type: "purchase", amount: 5_000))
        #expect(client.readLine()?.contains(#""code":"unknown_type""#) == true)

        let configPath = daemon.dataPath + ".yaml"
        try """
        types: [login, purchase]
        maxLineBytes: 4096
        alerts:
          - {name: big, query: "payload['amount'] > 1000"}
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        daemon.send(signal: SIGHUP)
        #expect(waitForLog(daemon, "SIGHUP: reloaded"), "\(daemon.log)")
        #expect(daemon.log.contains("applied only at a restart: maxLineBytes"), "\(daemon.log)")

        client.send(line: eventLine("p1", type: "purchase", amount: 5_000))
        #expect(client.readLine() == #"{"ack":"p1"}"#, "the same connection takes the new type")
        client.send(line: #"{"alerts":true}"#)
        let alerts = try #require(client.readLine())
        #expect(alerts.contains(#""id":"big:p1""#) && !alerts.contains("logins:"), "\(alerts)")
        #expect(subscriber.readLine()?.contains(#""p1""#) == true, "the subscription lives on")

        // A file that does not load (or names a bad query) is refused; the running rules stay.
        try "alerts:\n  - {name: broken, query: \"type ===\"}".write(toFile: configPath, atomically: true, encoding: .utf8)
        daemon.send(signal: SIGHUP)
        #expect(waitForLog(daemon, "not reloaded, the running configuration is kept"), "\(daemon.log)")
        client.send(line: eventLine("p2", type: "purchase", amount: 5_000))
        #expect(client.readLine() == #"{"ack":"p2"}"#)
        #expect(daemon.isRunning)
    }
}
