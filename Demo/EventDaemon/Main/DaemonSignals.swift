@preconcurrency import Dispatch
import Foundation
import Logging
import StrataEventd

/// What the daemon does on each signal it handles: SIGTERM, SIGINT and SIGQUIT stop it cleanly
/// (stop accepting, commit and acknowledge what was received, close the connections); SIGUSR1
/// logs the `stats` snapshot; SIGHUP and SIGUSR2 are ignored (logged): the daemon does not reload
/// its configuration, restart it to apply a change. None of them ends the process at once (their
/// default actions would: SIGQUIT without the drain, SIGUSR1 and SIGUSR2 outright).
final class DaemonSignals {
    private let sources: [any DispatchSourceSignal]

    /// The signals handled, each with what it does.
    private enum Action {
        case drainAndStop, logStats, ignore(String)

        init(_ number: Int32) {
            switch number {
            case SIGUSR1: self = .logStats
            case SIGHUP:
                self = .ignore("SIGHUP ignored: the configuration is read at start only; restart to apply a change")
            case SIGUSR2: self = .ignore("SIGUSR2 ignored (SIGUSR1 logs the stats; SIGTERM, SIGINT or SIGQUIT stop)")
            default: self = .drainAndStop
            }
        }
    }

    init(daemon: EventDaemon, logger: Logger) {
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

/// True exactly once.
private final class StopOnce: @unchecked Sendable {
    // Safety: only touched on the signal queue, which is serial.
    private var done = false
    func first() -> Bool {
        defer { done = true }
        return !done
    }
}
