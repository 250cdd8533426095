import ArgumentParser
import StrataEventd

/// `strata-eventgen`: sends generated events to a running `strata-eventd` and reports the
/// acknowledged throughput and the send → ack latency.
@main
struct EventGenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-eventgen", abstract: "Send generated events to strata-eventd and measure the acks.")

    @Option(help: "The daemon's TCP port.") var port = 7400
    @Option(help: "How many events to send.") var count = 100_000
    @Option(help: "Parallel connections.") var connections = 4
    @Option(help: "Events per second in all (0: as fast as the daemon acknowledges).") var rate = 0

    func run() throws {
        let report = try LoadGenerator(port: port, count: count, connections: connections, rate: rate).run()
        print(report)
    }
}
