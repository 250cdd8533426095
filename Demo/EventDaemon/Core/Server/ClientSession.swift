import Foundation
import Logging
import Strata

/// What a session needs of its client's connection (a libuv stream on the daemon's loop).
protocol ClientConnection: AnyObject {
    /// Queues `line` and a newline for writing.
    func send(_ line: String)
    /// Queues `line` and a newline; `whenWritten` runs once the kernel took them (not if the
    /// connection fails), so a producer can wait for a slow reader instead of queueing more.
    func send(_ line: String, whenWritten: (() -> Void)?)
    /// Bytes queued for writing and not yet taken by the kernel.
    var queuedBytes: Int { get }
    /// Bytes of output that reached the client so far (acknowledged by its TCP stack, or read
    /// from a Unix socket): grows as the client reads, however little at a time.
    var deliveredBytes: Int { get }
    /// Disconnects a client whose unread output passed the limit (counted once).
    func dropSlowReader()
    /// Disconnects a client that took no byte of a page of its initial result for `seconds`
    /// (counted once, apart from ``dropSlowReader()``).
    func dropStalledReader(stalledFor seconds: Int)
    /// Closes the connection once queued writes are flushed.
    func close()
}

/// One client: numbers its lines, answers each in order (`{"ack":…}` once the event is durable,
/// `{"error":…,"line":n}` for refused lines, `{"subscribed":n}`, `{"stats":…}`), and owns its
/// subscription. Lives on the daemon's loop thread.
final class ClientSession {
    private let connection: ClientConnection
    private let context: DaemonContext
    private var lineNumber = 0
    /// Replies ready to go, by line; each goes out once every earlier line's reply went.
    private var readyReplies: [Int: String] = [:]
    /// The line whose reply goes out next.
    private var nextReply = 1
    private var subscription: Subscription?
    /// The number `subscribed` gave the subscription (its `subscribe` line's).
    private var subscriptionNumber: Int?
    /// Events of the current read, submitted together.
    private var batch: [IngestWriter.Submission] = []
    private var isClosed = false
    /// The client ended its input; the connection closes once every line is answered (and no
    /// subscription is listening).
    private var inputHasEnded = false
    /// The session stopped reading (an HTTP request): later lines are ignored.
    private var hasHungUp = false

    /// The connection's number in the daemon's logs (1, 2, … in the order they were accepted).
    let connectionNumber: Int

    init(connection: ClientConnection, context: DaemonContext) {
        self.connection = connection
        self.context = context
        context.connectionsAccepted += 1
        connectionNumber = context.connectionsAccepted
    }

    /// Handles one complete line.
    func receive(line: some Collection<UInt8>) {
        guard !hasHungUp else { return }
        lineNumber += 1
        let number = lineNumber
        if number == 1, RequestParser.looksLikeHTTP(line) {
            // A browser or curl: one error line, then close; nothing it sends is read.
            reject(.httpRequest, line: number)
            hangUp()
            return
        }
        do throws(IngestRejection) {
            switch try context.parser.parse(line) {
            case .event(let event):
                let session = WeakLoopBound(self, loop: context.loop)
                batch.append(IngestWriter.Submission(event: event) { result in
                    let reply: String = switch result {
                    case .success(.stored): #"{"ack":\#(JSONValue.string(event.id).text)}"#
                    case .success(.duplicate): #"{"ack":\#(JSONValue.string(event.id).text),"duplicate":true}"#
                    case .failure(let rejection): ClientSession.error(rejection, line: number)
                    }
                    session.execute { $0.fill(number, with: reply) }
                })
            case .subscribe(let query, let sort, let ascending, let keyPaths):
                // The new subscription first: when it fails, the one that worked stays.
                let replacement = try Subscription(realm: context.realm, query: query, sort: sort, ascending: ascending,
                                                   keyPaths: keyPaths, limits: context.limits,
                                                   queries: context.sharedQueries, connection: connection) {
                    [weak self] counter in self?.subscriptionCancelled(counting: counter)
                }
                if let previous = subscription { previous.cancel() } else { context.statistics.noteSubscribers(1) }
                subscription = replacement
                subscriptionNumber = number
                reply(number, #"{"subscribed":\#(number)}"#)
            case .unsubscribe(let id):
                if let id, id != subscriptionNumber { throw IngestRejection.unknownSubscription(id) }
                if subscription != nil { context.statistics.noteSubscribers(-1) }
                subscription?.cancel()
                subscription = nil
                subscriptionNumber = nil
                reply(number, #"{"unsubscribed":\#(number)}"#)
            case .stats:
                var stats = context.statistics.snapshot(queueDepth: context.writer.queueDepth)
                if case .object(var fields) = stats {
                    fields["alerts"] = .int(Int64(context.realm.objects(Alert.self).count))
                    stats = .object(fields)
                }
                reply(number, #"{"stats":\#(stats.text)}"#)
            case .alerts(let rule, let limit):
                // The newest version: the alerts of events acknowledged before this line. The
                // loop's Realm moves on when its notifications are delivered; the refresh that
                // delivers them now runs as a loop task of its own, not inside this read.
                WeakLoopBound(self, loop: context.loop).execute { session in
                    session.context.realm.refresh()
                    let alerts = Self.alerts(in: session.context.realm, rule: rule, limit: limit)
                    session.reply(number, #"{"alerts":\#(alerts.text)}"#)
                }
            case .ping:
                reply(number, #"{"pong":true}"#)
            case .version:
                reply(number, #"{"version":\#(Self.versions.text)}"#)
            }
        } catch {
            reject(error, line: number)
        }
    }

    /// The newest alerts (of `rule`, when given), newest first, at most `limit`: the last ones
    /// stored (a query without a sort is in the order objects were added), so a request reads
    /// `limit` objects after the rule's index lookup, never sorts every alert.
    static func alerts(in realm: Realm, rule: String?, limit: Int) -> JSONValue {
        var alerts = realm.objects(Alert.self)
        if let rule { alerts = alerts.where { $0.rule == rule } }
        return .array(alerts.suffix(limit).reversed().map(\.json))
    }

    /// The reply to `version`: the daemon's (Strata's release) and the protocol's.
    static let versions = JSONValue.object(["daemon": .string(Strata.version), "protocol": .int(EventDaemon.protocolVersion)])

    /// Whether the session waits for nothing from the daemon: no subscription and every line
    /// answered (so a client that sends nothing is idle, not waiting).
    var isIdle: Bool { subscription == nil && nextReply > lineNumber }

    /// Reports a line the framer refused (too long) or cut off (the client went away).
    func refuse(_ rejection: IngestRejection) {
        guard !hasHungUp else { return }
        lineNumber += 1
        reject(rejection, line: lineNumber)
    }

    /// Submits the events read so far (call after each read).
    func flushBatch() {
        guard !batch.isEmpty else { return }
        let submissions = batch
        batch.removeAll()
        let accepted = context.writer.submit(submissions)
        guard accepted < submissions.count else { return }
        let refused = submissions[accepted...]
        for submission in refused { submission.done(.failure(.overloaded)) }
        context.statistics.noteRejected(IngestRejection.overloaded.code, count: refused.count)
        context.logger.warning("ingest queue full: refused \(refused.count) event(s)")
    }

    /// The client ended its input: its subscription ends and the connection closes after the
    /// last reply. A peer that closed its socket and one that only shut down its writing side
    /// look the same until something is written to them, and a subscription whose result never
    /// changes may write nothing for ever: a client that wants its stream keeps its side open.
    func inputEnded() {
        inputHasEnded = true
        if subscription != nil {
            subscription?.cancel()
            subscription = nil
            context.statistics.noteSubscribers(-1)
        }
        closeIfAnswered()
    }

    /// Stops reading this client: later lines are ignored and the connection closes once the
    /// replies so far went out.
    private func hangUp() {
        hasHungUp = true
        inputHasEnded = true
        closeIfAnswered()
    }

    private func closeIfAnswered() {
        guard inputHasEnded, !isClosed, subscription == nil, nextReply > lineNumber else { return }
        connection.close()
    }

    /// The connection closed: stop the subscription; pending events are still stored, their
    /// replies dropped.
    func closed() {
        isClosed = true
        readyReplies.removeAll()
        if subscription != nil { context.statistics.noteSubscribers(-1) }
        subscription?.cancel()
        subscription = nil
    }

    /// The subscription went past a limit (its CPU budget, or the bytes its paged version may
    /// pin) and cancelled itself (it sent the error line); `counter` counts it.
    private func subscriptionCancelled(counting counter: DaemonStatistics.LimitCounter) {
        guard subscription != nil else { return }
        subscription = nil
        context.statistics.noteSubscribers(-1)
        context.statistics.noteLimit(counter)
        closeIfAnswered()
    }

    private func reject(_ rejection: IngestRejection, line: Int) {
        context.statistics.noteRejected(rejection.code)
        context.refusals.note(rejection, line: line, connection: connectionNumber)
        reply(line, Self.error(rejection, line: line))
    }

    private static func error(_ rejection: IngestRejection, line: Int) -> String {
        #"{"error":\#(JSONValue.string(rejection.message).text),"code":\#(JSONValue.string(rejection.code).text),"line":\#(line)}"#
    }

    private func reply(_ line: Int, _ text: String) {
        fill(line, with: text)
    }

    /// Records the reply of `line` and sends every reply that is now next in line order.
    ///
    /// - Complexity: O(1) amortised per reply.
    private func fill(_ line: Int, with text: String) {
        guard !isClosed else { return }
        readyReplies[line] = text
        while let next = readyReplies.removeValue(forKey: nextReply) {
            connection.send(next)
            nextReply += 1
        }
        closeIfAnswered()
    }
}

/// What every session shares: the loop, its Realm, the writer, the parser and the counters.
final class DaemonContext {
    let loop: LibUVEventLoop
    let realm: Realm
    let writer: IngestWriter
    /// The request parser (its accepted types change when the configuration is reloaded).
    var parser: RequestParser
    let statistics: DaemonStatistics
    let logger: Logger
    /// The limits (set once at start-up).
    var limits = DaemonLimits()
    /// Connections open on every listener (against ``DaemonLimits/maxConnections``).
    var openConnections = 0
    /// Reply bytes queued for writing on every connection together (against
    /// ``DaemonLimits/maxTotalQueuedOutputBytes``).
    var queuedOutputBytes = 0
    /// The live queries the subscriptions share (one notifier and one update line per query).
    let sharedQueries: SharedQueries
    /// Refused lines, logged at debug and summed up at warning (see ``RefusalLog``).
    let refusals: RefusalLog
    /// Connections accepted since the start (numbers sessions in the logs).
    var connectionsAccepted = 0

    init(loop: LibUVEventLoop, realm: Realm, writer: IngestWriter, parser: RequestParser, statistics: DaemonStatistics,
         logger: Logger) {
        self.loop = loop
        self.realm = realm
        self.writer = writer
        self.parser = parser
        self.statistics = statistics
        self.logger = logger
        sharedQueries = SharedQueries(loop: loop)
        refusals = RefusalLog(logger: logger)
    }
}
