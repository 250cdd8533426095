import Strata
@_spi(StrataDaemon) import StrataEventLoop

/// A listener whose connections speak the daemon's NDJSON protocol: each connection gets a
/// line framer and a ``ClientSession``; one that stays idle past `limits.idleTimeoutSeconds` is
/// closed. Lives on the daemon's loop thread.
final class LineServer {
    private let listener: StreamListener
    private var connections: [ObjectIdentifier: Client] = [:]
    private var accepting = true
    /// The repeating check for idle connections.
    private var idleSweep: TimerHandle?
    /// When a failed accept was last logged (at most one line a second).
    private var acceptFailureLogged: ContinuousClock.Instant?

    /// One open connection (held here while it is open) and when it last completed a line.
    private final class Client {
        let connection: StreamConnection
        let session: ClientSession
        let writer: LineWriter
        var lastLine = ContinuousClock.now

        init(_ connection: StreamConnection, _ session: ClientSession, _ writer: LineWriter) {
            (self.connection, self.session, self.writer) = (connection, session, writer)
        }
    }

    private init(listener: StreamListener) {
        self.listener = listener
    }

    /// Starts the idle check: every quarter of the timeout (at most every 5 s), connections
    /// idle for longer than `limits.idleTimeoutSeconds` get one error line and are closed.
    private func watchIdleClients(on loop: LibUVEventLoop, context: DaemonContext) {
        let timeout = Duration.seconds(context.limits.idleTimeoutSeconds)
        let interval = min(timeout / 4, .seconds(5))
        idleSweep = loop.scheduleTimer(after: interval, repeating: interval) { [weak self] in
            self?.closeIdleClients(olderThan: timeout, context: context)
        }
    }

    private func closeIdleClients(olderThan timeout: Duration, context: DaemonContext) {
        let now = ContinuousClock.now
        for client in connections.values where client.session.isIdle && now - client.lastLine > timeout {
            client.lastLine = now // once: the close may wait for queued replies to be written
            context.statistics.noteLimit(.idleDisconnected)
            let seconds = context.limits.idleTimeoutSeconds
            context.logger.info("closed a client that completed no line for \(seconds) s")
            client.writer.send(#"{"error":"no complete line for \#(seconds) s: closed"}"#)
            client.writer.close()
        }
    }

    /// Counts every failed accept (no descriptor left: the clients waiting were closed
    /// unserved, see ``StreamListener``) and logs one line a second at most.
    private func reportAcceptFailures(context: DaemonContext) {
        listener.onAcceptError = { [weak self] error in
            context.statistics.noteLimit(.acceptFailures)
            let now = ContinuousClock.now
            guard let self, self.acceptFailureLogged.map({ now - $0 >= .seconds(1) }) ?? true else { return }
            self.acceptFailureLogged = now
            let open = context.openConnections
            context.logger.warning("""
                could not accept clients (\(error)): closed the clients waiting; \(open) connections are open
                """)
        }
    }

    /// The TCP port (0 for a Unix socket).
    var boundPort: Int { listener.port }

    /// Listens on TCP; with `authToken`, each client's first line must be `{"auth":"<token>"}`.
    static func listen(tcpHost host: String, port: Int, on loop: LibUVEventLoop, maxLineBytes: Int, authToken: String?,
                       context: DaemonContext) throws -> LineServer {
        let box = ServerBox()
        let token = authToken.map { Array($0.utf8) }
        let listener = try StreamListener.tcp(host: host, port: port, on: loop) {
            box.server?.accept($0, maxLineBytes, token, context)
        }
        let server = LineServer(listener: listener)
        box.server = server
        server.watchIdleClients(on: loop, context: context)
        server.reportAcceptFailures(context: context)
        return server
    }

    /// Listens on a Unix socket created with mode 0600, or 0660 owned by group `group`.
    static func listen(unixPath path: String, group: UInt32?, on loop: LibUVEventLoop, maxLineBytes: Int,
                       context: DaemonContext) throws -> LineServer {
        let box = ServerBox()
        let listener = try StreamListener.unix(path: path, permissions: group == nil ? 0o600 : 0o660, group: group,
                                               on: loop) { box.server?.accept($0, maxLineBytes, nil, context) }
        let server = LineServer(listener: listener)
        box.server = server
        server.watchIdleClients(on: loop, context: context)
        server.reportAcceptFailures(context: context)
        return server
    }

    private func accept(_ connection: StreamConnection, _ maxLineBytes: Int, _ authToken: [UInt8]?,
                        _ context: DaemonContext) {
        guard accepting else {
            connection.abort()
            return
        }
        guard context.openConnections < context.limits.maxConnections else {
            // One line, then the close (after it was written).
            context.statistics.noteLimit(.connectionsRefused)
            context.logger.warning("refused a connection: \(context.limits.maxConnections) connections are open")
            let refusal = #"{"error":"too many connections (limit \#(context.limits.maxConnections))"}"#
            connection.write(Array(refusal.utf8) + [UInt8(ascii: "\n")])
            connection.close()
            return
        }
        context.openConnections += 1
        // A peer that vanishes without closing is noticed even on a connection nothing is written to.
        connection.enableKeepalive(idle: .seconds(context.limits.keepaliveSeconds),
                                   interval: DaemonLimits.keepaliveProbeInterval, probes: DaemonLimits.keepaliveProbes)
        let id = ObjectIdentifier(connection)
        context.statistics.noteConnections(1)
        let writer = LineWriter(connection, context: context)
        let session = ClientSession(connection: writer, context: context)
        let client = Client(connection, session, writer)
        connections[id] = client
        var framer = LineFramer(maxLineBytes: maxLineBytes)
        var awaitingAuth = authToken != nil
        connection.onRead = { [weak client] bytes in
            for event in framer.feed(bytes) {
                client?.lastLine = ContinuousClock.now
                if awaitingAuth {
                    // The first line must authenticate; anything else ends the connection.
                    guard case .line(let line) = event, let authToken,
                          AccessControl.admits(line, token: authToken) else {
                        context.statistics.noteLimit(.authFailures)
                        context.logger.warning("refused a TCP client: missing or wrong auth token")
                        writer.send(AccessControl.refusedLine)
                        writer.close()
                        return
                    }
                    awaitingAuth = false
                    writer.send(AccessControl.acceptedLine)
                    continue
                }
                switch event {
                case .line(let line): session.receive(line: line)
                case .oversize: session.refuse(.tooLarge(maxLineBytes))
                }
            }
            session.flushBatch()
        }
        connection.onEnd = { _ in
            // The client ended its input (or the connection failed): answer what it sent, then
            // close, unless it still listens to a subscription.
            if framer.finish() {
                context.logger.info("a client ended its input in the middle of a line")
                session.refuse(.truncated)
            }
            session.flushBatch()
            session.inputEnded()
        }
        connection.onClose = { [weak self] in
            session.closed()
            context.openConnections -= 1
            context.statistics.noteConnections(-1)
            self?.connections[id] = nil
        }
        connection.startReading()
    }

    /// Stops accepting and stops reading (shutdown drains what was received).
    func stopAccepting() {
        accepting = false
        listener.close()
        idleSweep?.cancel()
        for client in connections.values { client.connection.stopReading() }
    }

    /// Closes every connection after its queued replies were written.
    func closeAll() {
        for client in connections.values { client.connection.close() }
        connections.removeAll()
    }
}

/// Lets the accept closure reach the server it belongs to (created after the listener).
private final class ServerBox {
    weak var server: LineServer?
}

/// A session's view of its connection: whole lines out, with a bound on what may wait to be
/// written (a client that reads slower than its replies are produced is disconnected).
private final class LineWriter: ClientConnection {
    private weak var connection: StreamConnection?
    private let context: DaemonContext
    private var dropped = false
    /// Bytes handed to ``send(_:whenWritten:)`` so far.
    private var sentBytes = 0

    init(_ connection: StreamConnection, context: DaemonContext) {
        self.connection = connection
        self.context = context
    }

    func send(_ line: String) {
        send(line, whenWritten: nil)
    }

    func send(_ line: String, whenWritten: (() -> Void)?) {
        guard let connection else { return }
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        let count = bytes.count
        let context = self.context
        context.queuedOutputBytes += count
        sentBytes += count
        // A client that went away: close, which ends its subscription. The completion runs for
        // every write, written, failed or dropped at the close, so the total stays exact.
        connection.write(bytes) { [weak connection] error in
            context.queuedOutputBytes -= count
            if error != nil { connection?.abort() } else { whenWritten?() }
        }
        let queued = connection.queuedWriteBytes
        if queued > context.limits.maxQueuedOutputBytes || isOverFairShare(queued) { dropSlowReader() }
    }

    /// Whether the output of every connection together passed
    /// ``DaemonLimits/maxTotalQueuedOutputBytes`` and this one holds more than its share of it:
    /// a thousand clients that never read must not hold a thousand times the per-connection
    /// limit, while a client that reads keeps its connection.
    private func isOverFairShare(_ queued: Int) -> Bool {
        let limit = context.limits.maxTotalQueuedOutputBytes
        guard context.queuedOutputBytes > limit else { return false }
        return queued > limit / max(1, context.openConnections)
    }

    var queuedBytes: Int { connection?.queuedWriteBytes ?? 0 }

    var deliveredBytes: Int { sentBytes - queuedBytes - (connection?.kernelUndeliveredBytes ?? 0) }

    func dropSlowReader() {
        let limit = context.limits.maxQueuedOutputBytes, total = context.limits.maxTotalQueuedOutputBytes
        let reason = "disconnected a client that does not read its replies (\(queuedBytes) bytes queued; "
            + "limits: \(limit) per connection, its share of \(total) in all)"
        drop(.slowReadersDisconnected, reason)
    }

    func dropStalledReader(stalledFor seconds: Int) {
        drop(.stalledPagesDisconnected,
             "disconnected a subscriber that took no byte of its initial result's page for \(seconds) s")
    }

    /// Aborts the connection, counted under `counter` and logged with `message` (once).
    private func drop(_ counter: DaemonStatistics.LimitCounter, _ message: String) {
        guard !dropped, let connection else { return }
        dropped = true
        context.statistics.noteLimit(counter)
        context.logger.warning("\(message)")
        connection.abort()
    }

    func close() {
        connection?.close()
    }
}
