import ArgumentParser
@preconcurrency import Dispatch
import Foundation
import Logging
import StrataEventd

/// `strata-eventd`: the event-processing daemon (see Demo/EventDaemon/README.md).
@main
struct EventDaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-eventd",
        abstract: "Ingest NDJSON events over TCP and a Unix socket into Strata, raise alerts, stream live queries.",
        discussion: "`strata-eventd ctl …` talks to a running daemon instead (see `strata-eventd ctl --help`).",
        version: EventDaemon.versionDescription)

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The TCP port (0: any free port; the chosen one is printed).") var port = 7400
    @Option(name: .customLong("socket"), help: "Also listen on this Unix socket path.") var socketPath: String?
    @Option(name: .customLong("data"), help: "The store file.") var dataPath = "eventd.strata"
    @Option(name: .customLong("config"), help: "A YAML file of limits, counters and alert rules.") var configPath: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
    @Option(help: "Log format on standard error: text, or json (one object per line: time, level, label, message, fields).")
    var logFormat = "text"
    @Option(help: "File of the token TCP clients send first: {\"auth\":\"…\"} (needed with a non-loopback --host).")
    var authTokenFile: String?
    @Option(help: "Give the Unix socket this group and mode 0660 (default: mode 0600, owner only).")
    var socketGroup: String?
    @Flag(help: "Run with a load generator and one live subscription printing to the terminal.") var demo = false
    @Flag(inversion: .prefixedNo,
          help: "Read and check every page of the store before starting; refuse to start (exit 65) if one is damaged.")
    var verify = true
    @Option(name: .customLong("salvage"),
            help: "Do not start: export every readable event and alert of the (damaged) store to this NDJSON file.")
    var salvagePath: String?

    /// Parses the arguments and runs; any failure is one line on standard error (`strata-eventd:
    /// error: …`) and a non-zero exit: 64 for bad arguments or settings, 65 for a damaged store
    /// (see ``StoreCheck``), 1 for a daemon that cannot start (the store, the listener, an alert
    /// query).
    ///
    /// `strata-eventd ctl …` is parsed on its own (``ControlCommand``): its `--host` and `--port`
    /// name the daemon to reach, where the daemon's own name where to listen.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let parser: any ParsableCommand.Type = arguments.first == "ctl" ? ControlCommand.self : Self.self
        if parser == ControlCommand.self {
            // A client ends on SIGTERM and SIGINT (Ctrl-C), even when started with them ignored or
            // blocked (both are inherited across exec): `ctl subscribe` runs until stopped.
            signal(SIGTERM, SIG_DFL)
            signal(SIGINT, SIG_DFL)
            var stopping = sigset_t()
            sigemptyset(&stopping)
            sigaddset(&stopping, SIGTERM)
            sigaddset(&stopping, SIGINT)
            sigprocmask(SIG_UNBLOCK, &stopping, nil)
        }
        do {
            var command = try parser.parseAsRoot(parser == Self.self ? arguments : Array(arguments.dropFirst()))
            try command.run()
        } catch {
            let code = parser.exitCode(for: error)
            guard code != .success else {
                emit(parser.fullMessage(for: error))           // --help
                Foundation.exit(0)
            }
            let line = "strata-eventd: error: "
                + parser.message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
            FileHandle.standardError.write(Data((line + "\n").utf8))
            if StoreCheck.isDamage(error) { Foundation.exit(StoreCheck.damagedStoreExitStatus) }
            Foundation.exit(code == .failure || code == .validationFailure ? code.rawValue : 1)
        }
    }

    func run() throws {
        // A write to a client that has gone must fail with EPIPE, never end the daemon (the loop
        // blocks SIGPIPE on its thread too); SIGHUP is ignored until DaemonSignals handles it (a reload).
        signal(SIGPIPE, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level '\(logLevel)' is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard logFormat == "text" || logFormat == "json" else {
            throw ValidationError("--log-format '\(logFormat)' is not text or json")
        }
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "strata-eventd")
        // Before the store opens and the connection cap is set; logged once the daemon runs (a
        // refused start prints its one error line only).
        let descriptors = DescriptorLimit.raiseSoftLimit()
        var options = DaemonOptions()
        options.host = host
        options.port = port
        options.socketPath = socketPath
        options.dataPath = dataPath
        options.authToken = try authTokenFile.map(AccessControl.readToken(path:))
        options.socketGroup = socketGroup
        if let configPath {
            do {
                options.config = try DaemonConfig.load(path: configPath)
            } catch {
                throw ValidationError("--config \(error)")
            }
        } else if demo {
            options.config.alerts = [DaemonConfig.AlertRule(name: "big-purchase", query: "type == 'purchase' AND payload['amount'] > 990")]
        }
        do {
            try options.validate()
        } catch {
            throw ValidationError("\(error)")
        }
        if let salvagePath {
            let summary = try SalvageExport(dataPath: dataPath, outputPath: salvagePath).run()
            for damage in summary.report.damage { logger.warning("skipped: \(damage)") }
            emit(summary.jsonLine)
            return
        }
        if verify { try StoreCheck.verifyAtStart(dataPath: dataPath, logger: logger) }
        let daemon = try EventDaemon(options: options, logger: logger)
        try daemon.start()
        if descriptors.after != descriptors.before {
            logger.info("raised the descriptor limit (RLIMIT_NOFILE) from \(descriptors.before) to \(descriptors.after)")
        } else {
            logger.info("descriptor limit (RLIMIT_NOFILE): \(descriptors.after)")
        }
        // The signal handlers first: a script may send SIGTERM as soon as it reads the port line,
        // and a signal that arrived between `SIG_IGN` and the dispatch source would be lost (the
        // daemon would run on, deaf to it).
        let signals = DaemonSignals(daemon: daemon, configPath: configPath, logger: logger)
        // The port line lets scripts and tests find a daemon started with --port 0.
        emit(#"{"listening":\#(daemon.tcpPort)}"#)
        if demo { DemoMode(daemon: daemon, authToken: options.authToken, logger: logger).start() }
        daemon.waitUntilStopped()
        withExtendedLifetime(signals) {}
        if let failure = daemon.storeFailure {
            throw DaemonError("the store refuses writes (\(failure)); every acknowledged event is on disk: "
                              + "restart to recover")
        }
    }
}

/// Writes a line to standard output at once (no buffering: scripts wait for these lines).
func emit(_ line: String) {
    // A closed standard output must not stop the daemon (`write(_:)` would trap on EPIPE).
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}
