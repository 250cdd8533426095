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
    /// The protocol's version, which the `version` request reports: 2 added `ping`, `version`,
    /// `alerts`, `"duplicate":true` acknowledgements and `unsubscribe` by number.
    public static let protocolVersion: Int64 = 2

    /// What `strata-eventd --version` prints: the release (Strata's) and the protocol's version.
    public static var versionDescription: String { "\(Strata.version) (protocol \(protocolVersion))" }

    // Safety: `state` is touched only on the loop thread (`start` hops there and waits);
    // `loop`, `writer`, `statistics`, `logger` and `options` are immutable and Sendable or
    // internally locked.
    /// Where and how the daemon runs.
    public let options: DaemonOptions
    let loop: LibUVEventLoop
    let statistics: DaemonStatistics
    let writer: IngestWriter
    let logger: Logger
    private let configuration: Realm.Configuration
    private var state: LoopState?
    private let stopped = DispatchSemaphore(value: 0)
    private let stopRequested = Locked(false)

    /// What lives on the loop thread.
    private final class LoopState {
        let context: DaemonContext
        var servers: [LineServer] = []
        init(context: DaemonContext) { self.context = context }
    }

    /// Prepares the daemon; ``start()`` opens the store and listens.
    ///
    /// - Throws: ``DaemonError`` or ``DaemonConfigError`` when ``DaemonOptions/validate()``
    ///   refuses the options; ``LibUVEventLoopError`` when the loop thread cannot start.
    public init(options: DaemonOptions, logger: Logger) throws {
        try options.validate()
        self.options = options
        self.logger = logger
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: options.dataPath),
                                                objectTypes: daemonObjectTypes)
        configuration.durability = options.config.store.realmDurability
        configuration.cacheSize = options.config.store.cacheBytes
        configuration.checkpointLogBytes = UInt64(options.config.checkpointBytes)
        if options.config.store.audit {
            configuration.eventConfiguration = EventConfiguration(metadata: ["daemon": "strata-eventd"], logger: nil) { error in
                Logger(label: "strata-eventd.audit").error("audit event not written: \(error)")
            }
        }
        self.configuration = configuration
        statistics = DaemonStatistics(counters: options.config.counters)
        let relay = StoreFailureRelay()
        writer = IngestWriter(configuration: configuration, config: options.config, statistics: statistics, logger: logger,
                              onStoreFailure: { reason in relay.daemon?.storeFailed(reason) })
        loop = try LibUVEventLoop.startThread(name: "strata-eventd")
        relay.daemon = self
    }

    /// Why the daemon stopped on its own, if it did: the store refused writes (a write or sync
    /// of its log failed, e.g. on a full disk). Every event acknowledged before is durable;
    /// restarting the daemon reopens the store and recovers.
    public var storeFailure: String? { writer.storeFailure }

    /// The store refuses every later write: refuse what is queued, answer every client, close
    /// and stop, so the process can exit non-zero and a supervisor restart it (reopening the
    /// store is what recovers it, and other Realms of this process hold it open).
    private func storeFailed(_ reason: String) {
        logger.critical("the store refuses writes (\(reason)); stopping so that a restart recovers it")
        // `stop()` waits for the writer thread, which is the caller: stop from another thread.
        Thread.detachNewThread { [self] in stop() }
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
        try Self.validateAlertRules(options.config.alerts, in: realm)
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
        logLoweredConnectionLimit()
    }

    /// Throws, naming the rule, when an alert rule's query is not valid RQL over events.
    static func validateAlertRules(_ rules: [DaemonConfig.AlertRule], in realm: Realm) throws {
        for rule in rules {
            do {
                _ = try realm.objects(StoredEvent.self).filter(validating: rule.query)
            } catch {
                throw DaemonError("alert rule '\(rule.name)': \(error)")
            }
        }
    }

    /// Applies a reloaded configuration's alert rules, accepted types, limits and retention to
    /// the running daemon, without dropping a connection or a subscription: new lines are parsed
    /// with the new types, new commits raise the new alerts, new connections and subscriptions
    /// get the new limits (those open keep the ones they started with). Call from any thread but
    /// the loop's.
    ///
    /// - Returns: the settings that changed but need a restart to apply (`maxLineBytes`, …).
    /// - Throws: ``DaemonError`` or ``DaemonConfigError`` for a configuration that would not
    ///   start the daemon (nothing is applied then).
    public func reload(_ config: DaemonConfig) throws -> [String] {
        try config.validate()
        try Self.validateAlertRules(config.alerts, in: try Realm(configuration: configuration))
        let limits = try connectionLimits(for: config.limits)
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            if let context = state?.context {
                context.parser = RequestParser(maxDepth: context.parser.maxDepth, knownTypes: config.types.map(Set.init))
                context.limits = limits
            }
            done.signal()
        }
        done.wait()
        writer.reload(alerts: config.alerts, retention: config.retention)
        let current = options.config
        return [("maxLineBytes", current.maxLineBytes != config.maxLineBytes), ("maxDepth", current.maxDepth != config.maxDepth),
                ("maxBatch", current.maxBatch != config.maxBatch), ("maxQueue", current.maxQueue != config.maxQueue),
                ("checkpointBytes", current.checkpointBytes != config.checkpointBytes),
                ("counters", current.counters != config.counters), ("store", current.store != config.store)]
            .filter(\.1).map(\.0)
    }

    private func startOnLoop() throws -> Int {
        let realm = try Realm(configuration: configuration)
        let parser = RequestParser(maxDepth: options.config.maxDepth, knownTypes: options.config.types.map(Set.init))
        let context = DaemonContext(loop: loop, realm: realm, writer: writer, parser: parser, statistics: statistics,
                                    logger: logger)
        context.limits = try connectionLimits(for: options.config.limits)
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
    /// and the loop. Call from any thread but the loop's; calls after the first return at once.
    public func stop() {
        let first = stopRequested.withLockedValue { requested in
            defer { requested = true }
            return !requested
        }
        guard first else { return }
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

    /// Whether ``stop()`` was called: the daemon is draining or has stopped.
    public var isStopping: Bool { stopRequested.withLockedValue { $0 } }

    /// Blocks until ``stop()`` finished (for the executable's main thread).
    public func waitUntilStopped() {
        stopped.wait()
    }

    /// The daemon's counters (as the `stats` request answers).
    public var stats: JSONValue { statistics.snapshot(queueDepth: writer.queueDepth) }
}

/// A daemon failure: at start-up, or the store failing while it runs.
public struct DaemonError: Error, CustomStringConvertible {
    /// What went wrong, in one line.
    public let description: String
    /// A failure described by `description`.
    public init(_ description: String) { self.description = description }
}

/// Carries a start-up error back from the loop thread.
private final class UnsafeResultBox: @unchecked Sendable {
    // Safety: written on the loop thread before the semaphore is signalled, read after the wait.
    var error: (any Error)?
}

/// Lets the writer, created before the daemon is, report a store failure to it.
private final class StoreFailureRelay: @unchecked Sendable {
    // Safety: `daemon` is set once at the end of `EventDaemon.init`, before the writer thread
    // starts (in `start()`), and only read after that.
    weak var daemon: EventDaemon?
}
