import Logging
import StrataEngine
import StrataSupport

/// Logs the failures of the checkpoints a store starts itself, through the logger of the
/// configuration its Realms were last opened with (see `Realm.Configuration.logger`), so that
/// no background checkpoint fails silently.
///
/// One per store, attached when a Realm opens it; it lives as long as the store.
final class CheckpointFailureLog: Sendable {
    /// The logger the latest Realm opened with asked for; nil: a `Logger(label: "strata")` made
    /// when a failure is logged (so it uses the logging system bootstrapped by then).
    private let logger = LockedValueBox<Logger?>(nil)
    private let path: String

    private init(path: String) { self.path = path }

    /// The log of `store`, created (and registered with the store) on first use, now logging
    /// through `logger`. A checkpoint that failed while the store opened, before any Realm
    /// could ask, is logged at once.
    static func attach(to store: Store, logger: Logger?) {
        var created = false
        let log = store.attachment("strata.checkpoint-failure-log") { () -> CheckpointFailureLog in
            created = true
            return CheckpointFailureLog(path: store.pagePath ?? "an in-memory Realm")
        }
        log.logger.withLockedValue { $0 = logger }
        guard created else { return }
        _ = store.addCheckpointFailureObserver { [weak log] error in log?.log(error) }
        if let failure = store.statistics.checkpoint.lastFailure { log.log(failure) }
    }

    /// Logs `error`, a failed checkpoint's, as an error.
    private func log(_ error: any Error) {
        let logger = self.logger.withLockedValue { $0 } ?? Logger(label: "strata")
        let realmError = Realm.Error.wrap(error)
        logger.error("a background checkpoint failed; the log and the page file stay valid and a later commit retries",
                     metadata: ["path": .string(path), "error": .string("\(realmError)"),
                                "code": .string("\(realmError.code)")])
    }
}
