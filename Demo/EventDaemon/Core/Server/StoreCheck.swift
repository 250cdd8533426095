import Foundation
import Logging
import Strata

/// The daemon's start-up check of its store files (``verifyAtStart(dataPath:logger:)``), and the
/// salvage of a damaged store (``SalvageExport``).
///
/// A read of a damaged page through an open store stops the process (Realm's read API cannot
/// throw), the first time any request touches it and again after every restart: a supervisor
/// would restart the daemon forever. Verifying first turns that into one refusal to start,
/// with its own exit status (``damagedStoreExitStatus``), which a supervisor can be told not to
/// restart on (systemd: `RestartPreventExitStatus=65`).
public enum StoreCheck {
    /// The exit status of a daemon that refuses to start because its store is damaged: 65
    /// (`EX_DATAERR`), distinct from 64 (bad arguments or settings) and 1 (any other failure).
    public static let damagedStoreExitStatus: Int32 = 65

    /// The store files the daemon opens: its store and the audit (event) store beside it.
    static func storePaths(dataPath: String) -> [String] { [dataPath, dataPath + ".events"] }

    /// Reads and checks every page and log record of the daemon's store and of its audit store
    /// (see `Realm.verify(configuration:)`), before the daemon opens them.
    ///
    /// A store that does not exist yet is skipped, as is one an earlier Strata wrote (opening
    /// upgrades it; it is not verified then).
    ///
    /// - Throws: ``DamagedStoreError`` naming the file and every damaged page; `Realm.Error` when
    ///   a store cannot be checked (open in another process, unreadable).
    /// - Complexity: O(n) in the size of the stores: about a full read of them (the daemon's
    ///   README gives the time for a 100,000-event store).
    public static func verifyAtStart(dataPath: String, logger: Logger) throws {
        for path in storePaths(dataPath: dataPath) {
            let start = ContinuousClock.now
            let report: Realm.VerificationReport
            do {
                report = try Realm.verify(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
            } catch let error as Realm.Error where error.code == .fileNotFound {
                continue
            } catch let error as Realm.Error
                        where error.code == .invalidDatabase && error.underlying?.code == .invalidFileFormat {
                logger.notice("\(path) was not verified: \(error.message)")
                continue
            }
            guard report.isIntact else { throw DamagedStoreError(report) }
            let elapsed = ContinuousClock.now - start
            let checked = "\(report.pagesChecked) pages and \(report.logRecordsChecked) log records"
            logger.info("verified \(path): \(checked) in \(elapsed)")
        }
    }

    /// Whether `error` (thrown while opening the store) says the store is damaged: then the
    /// daemon exits with ``damagedStoreExitStatus`` too (a damaged log or header is found by
    /// the open itself, also with `--no-verify`).
    public static func isDamage(_ error: any Error) -> Bool {
        if error is DamagedStoreError { return true }
        return (error as? Realm.Error)?.underlying?.code == .corruptFile
    }
}

/// The daemon's store is damaged: it refuses to start (see ``StoreCheck``).
public struct DamagedStoreError: Error, CustomStringConvertible {
    /// What the verification found.
    public let report: Realm.VerificationReport

    /// A refusal for the damage `report` found.
    public init(_ report: Realm.VerificationReport) { self.report = report }

    /// One line: the file, the damaged pages, and what is wrong with the first.
    public var description: String {
        let pages = report.damagedPages
        let where_ = pages.isEmpty ? "" : (pages.count == 1 ? " page " : " pages ")
            + pages.prefix(20).map(String.init).joined(separator: ", ") + (pages.count > 20 ? ", …" : "")
        let first = report.damage.first.map(\.description) ?? ""
        return "\(report.fileURL.path) is damaged (\(report.damage.count) damaged place"
            + (report.damage.count == 1 ? "" : "s") + "\(where_.isEmpty ? "" : ":" + where_)): \(first); "
            + "refusing to start. Restore it from a copy, or run strata-eventd --salvage OUT.ndjson to export "
            + "what is readable"
    }
}
