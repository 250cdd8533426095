import Strata

/// A listener whose connections speak the daemon's NDJSON protocol: each connection gets a
/// line framer and a ``ClientSession``. Lives on the daemon's loop thread.
final class LineServer {
    private let listener: StreamListener
    private var connections: [ObjectIdentifier: StreamConnection] = [:]
    private var accepting = true

    private init(listener: StreamListener) {
        self.listener = listener
    }

    /// The TCP port (0 for a Unix socket).
    var boundPort: Int { listener.port }

    static func listen(tcpHost host: String, port: Int, on loop: EventLoop, maxLineBytes: Int,
                       context: DaemonContext) throws -> LineServer {
        let box = ServerBox()
        let listener = try StreamListener.tcp(host: host, port: port, on: loop) { box.server?.accept($0, maxLineBytes, context) }
        let server = LineServer(listener: listener)
        box.server = server
        return server
    }

    static func listen(unixPath path: String, on loop: EventLoop, maxLineBytes: Int,
                       context: DaemonContext) throws -> LineServer {
        let box = ServerBox()
        let listener = try StreamListener.unix(path: path, on: loop) { box.server?.accept($0, maxLineBytes, context) }
        let server = LineServer(listener: listener)
        box.server = server
        return server
    }

    private func accept(_ connection: StreamConnection, _ maxLineBytes: Int, _ context: DaemonContext) {
        guard accepting else {
            connection.abort()
            return
        }
        let id = ObjectIdentifier(connection)
        connections[id] = connection
        context.statistics.noteConnections(1)
        let session = ClientSession(connection: LineWriter(connection), context: context)
        var framer = LineFramer(maxLineBytes: maxLineBytes)
        connection.onRead = { bytes in
            for event in framer.feed(bytes) {
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
            context.statistics.noteConnections(-1)
            self?.connections[id] = nil
        }
        connection.startReading()
    }

    /// Stops accepting and stops reading (shutdown drains what was received).
    func stopAccepting() {
        accepting = false
        listener.close()
        for connection in connections.values { connection.stopReading() }
    }

    /// Closes every connection after its queued replies were written.
    func closeAll() {
        for connection in connections.values { connection.close() }
        connections.removeAll()
    }
}

/// Lets the accept closure reach the server it belongs to (created after the listener).
private final class ServerBox {
    weak var server: LineServer?
}

/// A session's view of its connection: whole lines out.
private final class LineWriter: ClientConnection {
    private weak var connection: StreamConnection?

    init(_ connection: StreamConnection) {
        self.connection = connection
    }

    func send(_ line: String) {
        // A client that went away: close, which ends its subscription.
        connection?.write(Array(line.utf8) + [UInt8(ascii: "\n")]) { [weak connection] error in
            if error != nil { connection?.abort() }
        }
    }

    func close() {
        connection?.close()
    }
}
