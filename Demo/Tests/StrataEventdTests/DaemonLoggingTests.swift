import Foundation
import Logging
import StrataTestSupport
@testable import StrataEventd
import Testing

/// A log handler that keeps what it is given, for the tests.
final class CapturedLog: @unchecked Sendable {
    // Safety: `records` is guarded by `lock`.
    private let lock = NSLock()
    private var records: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] = []

    var all: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] { lock.withLock { records } }

    func logger() -> Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.lock.withLock { log.records.append((event.level, "\(event.message)", event.metadata ?? [:])) }
        }
    }
}

@Suite("strata-eventd logs: JSON lines, refused lines at debug with a rate-limited summary")
struct DaemonLoggingTests {
    @Test("a JSON log line has the time, level, label, message and every field, escaped")
    func jsonLine() throws {
        let line = JSONLogHandler.line(level: .warning, label: "strata-eventd", message: "a \"quoted\"\nmessage",
                                       metadata: ["line": "3", "code": "malformed"], time: Date(timeIntervalSince1970: 0))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object == ["time": "1970-01-01T00:00:00.000Z", "level": "warning", "label": "strata-eventd",
                           "message": "a \"quoted\"\nmessage", "line": "3", "code": "malformed"])
        #expect(!line.contains("\n"), "one line per record")
    }

    @Test("each refused line is logged at debug with its fields; a warning sums them up at most once per interval")
    func refusalSummary() {
        let log = CapturedLog()
        let refusals = RefusalLog(logger: log.logger(), interval: .seconds(10))
        let start = ContinuousClock.now
        for second in 0..<25 {
            refusals.note(.malformed("x"), line: second + 1, connection: 4, now: start + .seconds(second))
            refusals.note(.invalidUTF8, line: second + 100, connection: 4, now: start + .seconds(second))
        }
        let records = log.all
        #expect(records.filter { $0.level == .debug }.count == 50)
        #expect(records.first?.metadata["connection"] == "4" && records.first?.metadata["code"] == "malformed")
        let warnings = records.filter { $0.level == .warning }.map(\.message)
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.first?.hasPrefix("refused 21 lines in the last 10.0 seconds: invalid_utf8 10, malformed 11") == true,
                "\(warnings)")
    }
}
