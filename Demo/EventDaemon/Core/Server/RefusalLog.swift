import Foundation
import Logging

/// How refused lines are logged: each at `debug` (with the connection, line and code as
/// metadata), and at most one `warning` per interval summing them up by code, so that a client
/// sending garbage cannot flood the log (a refusal per line at `info` could write more than the
/// client sent).
final class RefusalLog {
    private let logger: Logger
    private let interval: Duration
    private var counts: [String: Int] = [:]
    private var windowStart: ContinuousClock.Instant?

    /// Sums up every `interval` (10 seconds by default).
    init(logger: Logger, interval: Duration = .seconds(10)) {
        self.logger = logger
        self.interval = interval
    }

    /// Logs one refused line; on the loop thread.
    func note(_ rejection: IngestRejection, line: Int, connection: Int, now: ContinuousClock.Instant = .now) {
        logger.debug("refused line \(line): \(rejection.message)",
                     metadata: ["connection": "\(connection)", "line": "\(line)", "code": "\(rejection.code)"])
        counts[rejection.code, default: 0] += 1
        guard let start = windowStart else {
            windowStart = now
            return
        }
        guard now - start >= interval else { return }
        let total = counts.values.reduce(0, +)
        let byCode = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        logger.warning("refused \(total) line\(total == 1 ? "" : "s") in the last \(interval): \(byCode)",
                       metadata: ["refused": "\(total)"])
        counts = [:]
        windowStart = now
    }
}
