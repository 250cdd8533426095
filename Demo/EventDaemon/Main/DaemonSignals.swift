@preconcurrency import Dispatch
import Foundation
import Logging
import StrataEventd

/// What the daemon does on each signal it handles: SIGTERM, SIGINT and SIGQUIT stop it cleanly
/// (stop accepting, commit and acknowledge what was received, close the connections); SIGUSR1
/// logs the `stats` snapshot; SIGHUP re-reads the `--config` file and applies its alert rules,
/// types, limits and retention (``EventDaemon/reload(_:)``; a file that does not load is logged and
/// the running configuration kept); SIGUSR2 is ignored (logged). None of them ends the process at
/// once (their default actions would: SIGQUIT without the drain, SIGHUP, SIGUSR1 and SIGUSR2
/// outright).
final class DaemonSignals {
    private let sources: [any DispatchSourceSignal]

    /// The signals handled, each with what it does.
    private enum Action {
        case drainAndStop, logStats, reload, ignore(String)

        init(_ number: Int32) {
            switch number {
            case SIGUSR1: self = .logStats
            case SIGHUP: self = .reload
            case SIGUSR2: self = .ignore("SIGUSR2 ignored (SIGUSR1 logs the stats; SIGTERM, SIGINT or SIGQUIT stop)")
            default: self = .drainAndStop
            }
        }
    }

    init(daemon: EventDaemon, configPath: String?, logger: Logger) {
        let queue = DispatchQueue(label: "strata-eventd.signals")
        let once = StopOnce()
        sources = [SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            let action = Action(number)
            source.setEventHandler {
                switch action {
                case .ignore(let message):
                    logger.notice("\(message)")
                case .logStats:
                    logger.notice("SIGUSR1: stats \(daemon.stats.text)")
                case .reload:
                    Self.reload(daemon, from: configPath, logger: logger)
                case .drainAndStop:
                    guard once.first() else { return }
                    logger.notice("signal \(number): draining and stopping")
                    daemon.stop()
                }
            }
            source.resume()
            return source
        }
    }
}

extension DaemonSignals {
    /// SIGHUP: loads `path` again and applies it; any failure keeps the running configuration.
    static func reload(_ daemon: EventDaemon, from path: String?, logger: Logger) {
        guard let path else {
            logger.notice("SIGHUP: no --config file to read again; the defaults stay in force")
            return
        }
        do {
            let config = try DaemonConfig.load(path: path)
            let needRestart = try daemon.reload(config)
            let types: String = config.types.map { "\($0.count) types" } ?? "any type"
            var message = "SIGHUP: reloaded \(path): \(config.alerts.count) alert rule(s), \(types), limits and retention applied"
            if !needRestart.isEmpty {
                message += "; changed but applied only at a restart: " + needRestart.joined(separator: ", ")
            }
            logger.notice("\(message)")
        } catch {
            logger.error("SIGHUP: \(path) not reloaded, the running configuration is kept: \(error)")
        }
    }
}

/// True exactly once.
private final class StopOnce: @unchecked Sendable {
    // Safety: only touched on the signal queue, which is serial.
    private var done = false
    func first() -> Bool {
        defer { done = true }
        return !done
    }
}
