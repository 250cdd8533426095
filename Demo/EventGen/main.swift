import ArgumentParser
import Foundation
import StrataEventd

/// `strata-eventgen`: sends generated events to a running `strata-eventd` and reports the
/// acknowledged throughput and the send → ack latency; exits with status 1 when events went
/// unanswered (the daemon closed a connection, or stopped answering for `--reply-timeout`).
@main
struct EventGenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-eventgen", abstract: "Send generated events to strata-eventd and measure the acks.")

    @Option(help: "The daemon's TCP port.") var port = 7400
    @Option(help: "How many events to send.") var count = 100_000
    @Option(help: "Parallel connections.") var connections = 4
    @Option(help: "Events per second in all (0: as fast as the daemon acknowledges).") var rate = 0
    @Option(help: "Also measure subscription latency with this many probe events, during the load.")
    var latencySamples = 0
    @Option(help: "A file holding the daemon's auth token (its --auth-token-file).") var authTokenFile: String?
    @Option(help: "Seconds a connection waits for the daemon's next reply before it gives up on its unanswered events (0: forever).")
    var replyTimeout = 30.0

    func run() throws {
        var configured = LoadGenerator(port: port, count: count, connections: connections, rate: rate)
        configured.authToken = try authTokenFile.map(AccessControl.readToken(path:))
        guard replyTimeout >= 0, replyTimeout.isFinite else {
            throw ValidationError("--reply-timeout must be a number of seconds, 0 or more")
        }
        configured.replyTimeout = replyTimeout > 0 ? .milliseconds(Int64(min(replyTimeout, 1e9) * 1000)) : nil
        let generator = configured
        let latency = LatencyResult()
        let probe = Thread {
            guard latencySamples > 0 else { return }
            do {
                let result = try generator.measureSubscriptionLatency(samples: latencySamples)
                latency.set(String(format: "subscription latency (send → change set) p50 %.2f ms, p99 %.2f ms; ack p50 %.2f ms, p99 %.2f ms",
                                   result.p50, result.p99, result.ackP50, result.ackP99))
            } catch {
                latency.set("subscription latency not measured: \(error)")
            }
        }
        probe.start()
        let report = try generator.run()
        print(report)
        while latencySamples > 0, latency.get() == nil, !probe.isFinished { Thread.sleep(forTimeInterval: 0.05) }
        if let text = latency.get() { print(text) }
        // A run that left events unanswered failed, whatever it measured.
        if report.unanswered > 0 { throw ExitCode.failure }
    }
}

/// The probe thread's result.
final class LatencyResult: @unchecked Sendable {
    // Safety: guarded by `lock`.
    private let lock = NSLock()
    private var text: String?
    func set(_ value: String) { lock.withLock { text = value } }
    func get() -> String? { lock.withLock { text } }
}
