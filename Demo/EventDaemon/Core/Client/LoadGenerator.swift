import Foundation

/// Sends generated events to the daemon and measures what comes back (`strata-eventgen`, the
/// demo, the benchmarks of the closing note).
public struct LoadGenerator: Sendable {
    /// Where the daemon listens.
    public var port: Int
    /// Events to send in all.
    public var count: Int
    /// Parallel connections.
    public var connections: Int
    /// Events per second across all connections (0: as fast as acknowledged).
    public var rate: Int
    /// A prefix for ids, so runs do not collide.
    public var idPrefix: String
    /// Events sent and not yet acknowledged, per connection, at most (a client that waits for
    /// its acks, as a real producer does).
    public var window = 2_000
    /// The daemon's shared token, if it requires one.
    public var authToken: String?
    /// How long a connection waits for the daemon's next reply (beyond the pause `rate` puts
    /// between its events) before it gives up on the events it has not had answered, which the
    /// report counts as unanswered; nil waits forever. A daemon that stops answering without
    /// closing its connections would otherwise keep the run waiting forever.
    public var replyTimeout: Duration? = .seconds(30)

    /// A generator of `count` events over `connections` connections to `port`, at most `rate` per
    /// second (0: as fast as acks allow), with ids starting with `idPrefix`.
    public init(port: Int, count: Int, connections: Int = 4, rate: Int = 0, idPrefix: String = UUID().uuidString.prefix(8).lowercased()) {
        self.port = port
        self.count = count
        self.connections = connections
        self.rate = rate
        self.idPrefix = idPrefix
    }

    /// What a run measured.
    public struct Report: Sendable, CustomStringConvertible {
        /// Events acknowledged.
        public var acknowledged = 0
        /// Events answered with an error.
        public var errors = 0
        /// Events that got no answer: the daemon closed the connection, or sent nothing for
        /// ``LoadGenerator/replyTimeout``, before answering them (unsent events included).
        public var unanswered = 0
        /// How long the run took.
        public var seconds = 0.0
        /// Send → ack latency, median, in milliseconds.
        public var p50 = 0.0
        /// Send → ack latency, 99th percentile, in milliseconds.
        public var p99 = 0.0
        /// Acknowledged events per second.
        public var eventsPerSecond: Double { seconds > 0 ? Double(acknowledged) / seconds : 0 }
        /// The report in one line.
        public var description: String {
            "\(acknowledged) acknowledged, \(errors) errors" + (unanswered > 0 ? ", \(unanswered) unanswered" : "")
                + String(format: " in %.2f s: %.0f events/s, ack latency p50 %.2f ms, p99 %.2f ms",
                         seconds, eventsPerSecond, p50, p99)
        }
    }

    static let types = ["login", "logout", "purchase", "view", "error"]
    static let sources = ["web", "ios", "android", "api"]

    /// The JSON line of event number `n`.
    public func line(_ n: Int) -> String {
        let type = Self.types[n % Self.types.count]
        let source = Self.sources[(n / 7) % Self.sources.count]
        let amount = (n * 7919) % 1000
        return #"{"id":"\#(idPrefix)-\#(n)","type":"\#(type)","source":"\#(source)","time":\#(Int(Date().timeIntervalSince1970)),"payload":{"amount":\#(amount),"items":[\#(n % 3),\#(n % 5)],"user":{"id":\#(n % 97)}}}"#
    }

    /// Runs the load and waits for every acknowledgement.
    public func run() throws -> Report {
        let perConnection = (count + connections - 1) / connections
        let results = LockedReports()
        let start = Date()
        let group = DispatchGroup()
        let interval = rate > 0 ? Double(connections) / Double(rate) : 0
        let timeout = replyTimeout.map { $0 + .seconds(interval) }
        for connection in 0..<connections {
            let first = connection * perConnection
            let numbers = first..<min(count, first + perConnection)
            guard !numbers.isEmpty else { continue }
            let client = try LineClient(port: port, timeout: timeout, authToken: authToken)
            let sent = SendTimes(count: numbers.count)
            let inFlight = SendWindow(size: window)
            group.enter()
            Thread.detachNewThread {
                var latencies: [Double] = []
                var report = Report()
                for index in 0..<numbers.count {
                    guard let reply = client.readLine() else { break }
                    inFlight.giveBack()
                    latencies.append(Date().timeIntervalSince(sent.time(index)) * 1000)
                    if reply.hasPrefix(#"{"ack""#) { report.acknowledged += 1 } else { report.errors += 1 }
                }
                // The connection ended (every reply read, or the daemon closed it): the sender stops.
                inFlight.close()
                results.add(report, latencies)
                group.leave()
            }
            Thread.detachNewThread {
                for (index, n) in numbers.enumerated() {
                    guard inFlight.take() else { break }
                    sent.set(index)
                    client.send(line: line(n))
                    if interval > 0 { Thread.sleep(forTimeInterval: interval) }
                }
            }
        }
        group.wait()
        var report = results.total
        report.seconds = Date().timeIntervalSince(start)
        report.unanswered = count - report.acknowledged - report.errors
        return report
    }
}

/// The events one connection may have sent and not yet had answered (the generator's `window`):
/// the sending thread takes a place before each event, the reading thread gives one back with
/// each reply and closes the window when the connection ends, which stops the sender.
///
/// Not a `DispatchSemaphore`: a daemon that stops in the middle of a run leaves events
/// unanswered, and libdispatch stops the process (a trap) when a semaphore is freed holding fewer
/// places than it was created with, which the last of the two threads to finish did whenever
/// the sender had sent its last event before the daemon went away.
private final class SendWindow: @unchecked Sendable {
    // Safety: `available` and `isClosed` are guarded by `condition`.
    private let condition = NSCondition()
    private var available: Int
    private var isClosed = false

    init(size: Int) { available = size }

    /// Waits for a place and takes it; false, at once, when the window is closed.
    func take() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while available == 0, !isClosed { condition.wait() }
        guard !isClosed else { return false }
        available -= 1
        return true
    }

    /// Gives back the place of an answered event.
    func giveBack() {
        condition.withLock {
            available += 1
            condition.signal()
        }
    }

    /// Closes the window: the sender's next `take()` returns false, and a waiting one wakes.
    func close() {
        condition.withLock {
            isClosed = true
            condition.broadcast()
        }
    }
}

/// Send instants, written by the sending thread and read by the reading one.
private final class SendTimes: @unchecked Sendable {
    // Safety: guarded by `lock`.
    private let lock = NSLock()
    private var times: [Date]
    init(count: Int) { times = Array(repeating: Date(), count: count) }
    func set(_ index: Int) { lock.withLock { times[index] = Date() } }
    func time(_ index: Int) -> Date { lock.withLock { times[index] } }
}

private final class LockedReports: @unchecked Sendable {
    // Safety: guarded by `lock`.
    private let lock = NSLock()
    private var report = LoadGenerator.Report()
    private var latencies: [Double] = []

    func add(_ part: LoadGenerator.Report, _ partLatencies: [Double]) {
        lock.withLock {
            report.acknowledged += part.acknowledged
            report.errors += part.errors
            latencies += partLatencies
        }
    }

    var total: LoadGenerator.Report {
        lock.withLock {
            var total = report
            let sorted = latencies.sorted()
            if !sorted.isEmpty {
                total.p50 = sorted[sorted.count / 2]
                total.p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
            }
            return total
        }
    }
}

extension LoadGenerator {
    /// Measures subscription latency: one subscriber watches `source == '<probe>'`, then
    /// `samples` events of that source are sent one at a time; each sample is the time from
    /// sending the event to the subscriber receiving the change set that inserts it, and to its
    /// ack. Run it while `run()` loads the daemon for latency under load.
    ///
    /// - Returns: (update p50, update p99, ack p50, ack p99) in milliseconds.
    public func measureSubscriptionLatency(samples: Int) throws -> (p50: Double, p99: Double, ackP50: Double, ackP99: Double) {
        let probe = "probe-\(idPrefix)"
        let subscriber = try LineClient(port: port, timeout: replyTimeout, authToken: authToken)
        subscriber.send(line: #"{"subscribe":"source == '\#(probe)'"}"#)
        _ = try Self.reply(from: subscriber, awaiting: "the subscription's confirmation")   // {"subscribed":1}
        _ = try Self.reply(from: subscriber, awaiting: "the subscription's first page")     // {"initial":…}
        let sender = try LineClient(port: port, timeout: replyTimeout, authToken: authToken)
        var updates: [Double] = []
        var acks: [Double] = []
        for n in 0..<samples {
            let id = "\(probe)-\(n)"
            let start = Date()
            sender.send(line: #"{"id":"\#(id)","type":"view","source":"\#(probe)","time":\#(Int(start.timeIntervalSince1970))}"#)
            _ = try Self.reply(from: sender, awaiting: "the ack of probe event \(n)")
            acks.append(Date().timeIntervalSince(start) * 1000)
            while !(try Self.reply(from: subscriber, awaiting: "the change set of probe event \(n)")).contains(#""id":"\#(id)""#) {}
            updates.append(Date().timeIntervalSince(start) * 1000)
        }
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        return (percentile(updates, 0.5), percentile(updates, 0.99), percentile(acks, 0.5), percentile(acks, 0.99))
    }

    /// The next line from `client`; throws ``LoadGeneratorNoReply`` when the daemon closed the
    /// connection or sent nothing for the client's timeout.
    private static func reply(from client: LineClient, awaiting what: String) throws -> String {
        guard let line = client.readLine() else { throw LoadGeneratorNoReply(awaiting: what) }
        return line
    }
}

/// The daemon closed a connection, or sent nothing for ``LoadGenerator/replyTimeout``, where a
/// reply was due.
public struct LoadGeneratorNoReply: Error, CustomStringConvertible {
    /// The reply that did not come.
    public let awaiting: String
    /// The error in one line.
    public var description: String {
        "no reply from the daemon (it closed the connection, or sent nothing for the reply timeout) awaiting \(awaiting)"
    }
}
