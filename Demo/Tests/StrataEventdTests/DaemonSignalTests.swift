import Foundation
import Strata
import StrataEventd
import StrataTestSupport
import Testing

/// The signals an operator or a supervisor may send the real daemon besides SIGTERM: SIGQUIT
/// stops it with the same drain (its default action would end it at once, with a core dump),
/// SIGUSR1 logs the `stats` snapshot and SIGUSR2 is ignored (their default action would end the
/// daemon at once).
@Suite("strata-eventd signals", .serialized)
struct DaemonSignalTests {
    @Test("SIGQUIT drains like SIGTERM: every event acknowledged is stored, and the exit is clean")
    func sigquitDrains() throws {
        let path = DaemonProcess.temporaryPath()
        let daemon = try DaemonProcess(dataPath: path)
        defer { if daemon.isRunning { daemon.kill() } }
        let client = try daemon.client()
        for n in 0..<300 { client.send(line: eventLine("q\(n)")) }
        // Wait for the first ack so the lines were read, then stop.
        #expect(client.readLine()?.hasPrefix(#"{"ack""#) == true)
        daemon.send(signal: SIGQUIT)
        #expect(daemon.process.waitForExit(timeout: DaemonProcess.patience) == 0, "\(daemon.log.suffix(2_000))")
        var acks = 1
        while let line = client.readLine(), line.hasPrefix(#"{"ack""#) { acks += 1 }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                 objectTypes: daemonObjectTypes))
        #expect(realm.objects(StoredEvent.self).count >= acks)
    }

    @Test("SIGUSR1 logs the stats snapshot and SIGUSR2 is ignored (logged); the daemon keeps serving, then drains on SIGTERM")
    func userSignals() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), logLevel: "notice")
        defer { daemon.terminate() }
        let client = try daemon.client()
        client.send(line: eventLine("before-usr1"))
        #expect(client.readLine() == #"{"ack":"before-usr1"}"#)

        daemon.send(signal: SIGUSR1)
        _ = waitUntil(timeout: 60) { daemon.log.contains("SIGUSR1: stats {") || !daemon.isRunning }
        #expect(daemon.log.contains(#"SIGUSR1: stats {"#), "\(daemon.log.suffix(2_000))")
        #expect(daemon.log.contains(#""stored":1"#), "\(daemon.log.suffix(2_000))")
        daemon.send(signal: SIGUSR2)
        _ = waitUntil(timeout: 60) { daemon.log.contains("SIGUSR2 ignored") || !daemon.isRunning }
        #expect(daemon.log.contains("SIGUSR2 ignored"), "\(daemon.log.suffix(2_000))")

        client.send(line: eventLine("after-usr"))
        #expect(client.readLine() == #"{"ack":"after-usr"}"#)
        #expect(daemon.isRunning)
        #expect(daemon.terminate() == 0)
    }
}
