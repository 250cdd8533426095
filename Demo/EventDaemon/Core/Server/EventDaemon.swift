import Foundation
import Logging
import Strata

/// Where and how the daemon runs.
public struct DaemonOptions: Sendable {
    /// TCP host to listen on (default loopback).
    public var host = "127.0.0.1"
    /// TCP port (0: any free port; ``EventDaemon/tcpPort`` tells which).
    public var port = 7400
    /// A Unix socket path to listen on as well.
    public var socketPath: String?
    /// The store file.
    public var dataPath = "eventd.strata"
    /// Rules and limits.
    public var config = DaemonConfig()
    /// The shared token TCP clients must send first (`{"auth":"…"}`); required when ``host``
    /// is not a loopback address.
    public var authToken: String?
    /// The group of the Unix socket (mode 0660); nil: owner only (0600).
    public var socketGroup: String?

    public init() {}
}

/// `strata-eventd`: ingests newline-delimited JSON events over TCP and a Unix socket, stores
/// them idempotently in group commits, acknowledges each once durable, raises alerts, and
/// streams live query results to subscribers — one libuv loop serves the network and the
/// notifications.
public final class EventDaemon: @unchecked Sendable {
    // Safety: `state` is touched only on the loop thread (`start` hops there and waits);
    // `loop`, `writer`, `statistics`, `logger` and `options` are immutable and Sendable or
    // internally locked.
    public let options: DaemonOptions
    let loop: EventLoop
    let statistics: DaemonStatistics
    let writer: IngestWriter
    let logger: Logger
    private let configuration: Realm.Configuration
    private var state: LoopState?
    private let stopped = DispatchSemaphore(value: 0)

    /// What lives on the loop thread.
    private final class LoopState {
        let context: DaemonContext
        var servers: [LineServer] = []
        init(context: DaemonContext) { self.context = context }
    }

    /// Prepares the daemon; ``start()`` opens the store and listens.
    ///
    /// - Throws: ``DaemonError`` or ``DaemonConfigError`` when ``DaemonOptions/validate()``
    ///   refuses the options; ``EventLoopError`` when the loop thread cannot start.
    public init(options: DaemonOptions, logger: Logger) throws {
        try options.validate()
        self.options = options
        self.logger = logger
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: options.dataPath),
                                                objectTypes: daemonObjectTypes)
        configuration.durability = .full
        configuration.eventConfiguration = EventConfiguration(metadata: ["daemon": "strata-eventd"], logger: nil) { error in
            Logger(label: "strata-eventd.audit").error("audit event not written: \(error)")
        }
        self.configuration = configuration
        statistics = DaemonStatistics(windowSeconds: options.config.counters.windowSeconds)
        writer = IngestWriter(configuration: configuration, config: options.config, statistics: statistics, logger: logger)
        loop = try EventLoop.startThread(name: "strata-eventd")
    }

    /// The TCP port the daemon listens on (after ``start()``).
    public private(set) var tcpPort: Int = 0

    /// Opens the store, validates the alert rules, starts the writer and listens.
    ///
    /// - Throws: the store's error, a rule's RQL error (naming the rule), or the listener's
    ///   error (a port in use, a bad socket path).
    public func start() throws {
        if options.authToken == nil, !AccessControl.isLoopback(options.host) {
            throw DaemonError("--host \(options.host) is not a loopback address: refusing to listen without "
                              + "--auth-token-file")
        }
        // Open the store here first, so that a store that cannot open is one error, before the
        // writer thread starts.
        let realm = try Realm(configuration: configuration)
        for rule in options.config.alerts {
            do {
                _ = try realm.objects(StoredEvent.self).filter(validating: rule.query)
            } catch {
                throw DaemonError("alert rule '\(rule.name)': \(error)")
            }
        }
        writer.start()
        let result = UnsafeResultBox()
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            do {
                tcpPort = try startOnLoop()
            } catch {
                result.error = error
            }
            done.signal()
        }
        done.wait()
        if let error = result.error {
            writer.stop()
            loop.shutdownAndWait()
            throw error
        }
        logger.info("listening on \(options.host):\(tcpPort)\(options.socketPath.map { " and \($0)" } ?? "")")
    }

    private func startOnLoop() throws -> Int {
        let realm = try Realm(configuration: configuration)
        let parser = RequestParser(maxDepth: options.config.maxDepth, knownTypes: options.config.types.map(Set.init))
        let context = DaemonContext(loop: loop, realm: realm, writer: writer, parser: parser, statistics: statistics,
                                    logger: logger)
        context.limits = options.config.limits
        let state = LoopState(context: context)
        self.state = state
        let group = try options.socketGroup.map(AccessControl.groupID(named:))
        let tcp: LineServer
        do {
            tcp = try LineServer.listen(tcpHost: options.host, port: options.port, on: loop,
                                        maxLineBytes: options.config.maxLineBytes, authToken: options.authToken,
                                        context: context)
        } catch {
            throw DaemonError("cannot listen on \(options.host):\(options.port): \(error)")
        }
        state.servers.append(tcp)
        if let path = options.socketPath {
            do {
                state.servers.append(try LineServer.listen(unixPath: path, group: group, on: loop,
                                                           maxLineBytes: options.config.maxLineBytes, context: context))
            } catch {
                throw DaemonError("cannot listen on \(path): \(error)")
            }
        }
        return tcp.boundPort
    }

    /// Stops accepting, commits and acknowledges what was received, closes every connection
    /// and the loop. Call from any thread but the loop's.
    public func stop() {
        let closed = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            for server in state?.servers ?? [] { server.stopAccepting() }
            closed.signal()
        }
        closed.wait()
        writer.stop()                       // commits what is queued; acks hop to the loop
        let drained = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            for server in state?.servers ?? [] { server.closeAll() }
            state = nil
            drained.signal()
        }
        drained.wait()
        loop.shutdownAndWait()
        logger.info("stopped")
        stopped.signal()
    }

    /// Blocks until ``stop()`` finished (for the executable's main thread).
    public func waitUntilStopped() {
        stopped.wait()
    }

    /// The daemon's counters (as the `stats` request answers).
    public var stats: JSONValue { statistics.snapshot(queueDepth: writer.queueDepth) }
}

/// A daemon start-up failure.
public struct DaemonError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Carries a start-up error back from the loop thread.
private final class UnsafeResultBox: @unchecked Sendable {
    // Safety: written on the loop thread before the semaphore is signalled, read after the wait.
    var error: (any Error)?
}
