import Foundation
import Logging
import StrataEventd

/// `--demo`: a load generator feeding the daemon and one live subscription (big purchases)
/// printing its change sets to the terminal.
struct DemoMode {
    let daemon: EventDaemon
    let authToken: String?
    let logger: Logger

    func start() {
        let daemon = self.daemon
        let port = daemon.tcpPort
        let logger = self.logger
        let authToken = self.authToken
        Thread.detachNewThread {
            do {
                let subscriber = try LineClient(port: port, authToken: authToken)
                subscriber.send(line: #"{"subscribe":"type == 'purchase' AND payload['amount'] > 900","sort":{"keyPath":"time","ascending":false}}"#)
                while let line = subscriber.readLine() {
                    emit("subscription: \(line.count > 240 ? String(line.prefix(240)) + "…" : line)")
                }
            } catch {
                // A connection the daemon closed while stopping (Ctrl-C) is not an error.
                if !daemon.isStopping { logger.error("demo subscriber: \(error)") }
            }
        }
        Thread.detachNewThread {
            var round = 0
            while true {
                round += 1
                do {
                    var generator = LoadGenerator(port: port, count: 5_000, connections: 2, rate: 2_000,
                                                  idPrefix: "demo-\(UUID().uuidString.prefix(6))")
                    generator.authToken = authToken
                    let report = try generator.run()
                    emit("generator round \(round): \(report)")
                } catch {
                    if !daemon.isStopping { logger.error("demo generator: \(error)") }
                    return
                }
            }
        }
    }
}
