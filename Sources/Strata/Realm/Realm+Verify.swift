import Foundation
import StrataEngine

/// Finding damage in a Realm's files without stopping the process, and getting out what is still
/// readable (Strata's own; Realm Swift has no such calls).
extension Realm {
    /// Reads and checks every page and log record of a closed Realm's files and reports each
    /// damaged place, naming the file and page, instead of stopping the process.
    ///
    /// A read of a damaged page through an open Realm stops the process with a message naming the
    /// file and page, because Realm's read API cannot throw; so a damaged file stops every process
    /// that opens it, the first time something reads that page. Call this first (at the start of
    /// a service, before opening the Realm) to refuse to start with a clear error instead, or to
    /// check a file restored from a backup.
    ///
    /// It reads the header, every page the last checkpoint reaches (the catalog, every object,
    /// index and backlink page, the free list) and every commit log record after it, opening the
    /// files read-only and writing nothing, in about the time a full read of the file takes
    /// (see the Durability article). The files are locked for the call: no process can open the
    /// Realm meanwhile. A torn end of the newest log segment, which a crash leaves and opening
    /// cuts off, is not damage; neither is a header slot torn by a crash while its checkpoint
    /// ran. A current header slot damaged since is ("header slot 1 (page 1) of … is damaged, and
    /// it is the current header").
    ///
    /// ```swift
    /// let report = try Realm.verify(configuration: config)
    /// guard report.isIntact else {
    ///     for damage in report.damage { print(damage) }  // page 7 of …: checksum mismatch …
    ///     exit(3)
    /// }
    /// let realm = try Realm(configuration: config)
    /// ```
    ///
    /// - Returns: what was checked and every damaged place (see ``VerificationReport``).
    /// - Throws: ``Realm/Error/Code/alreadyOpen`` when the Realm is open in this process or
    ///   another; ``Realm/Error/Code/fileNotFound`` when it does not exist; ``Realm/Error/Code/fail``
    ///   for an in-memory configuration; ``Realm/Error/Code/invalidDatabase`` when the file is not a
    ///   Strata file, or was written by an earlier Strata (open it once to upgrade it first);
    ///   ``Realm/Error/Code/fileAccess`` when a file cannot be read.
    /// - Complexity: O(n) in the size of the file's last checkpoint plus the log.
    public static func verify(configuration: Configuration = .defaultConfiguration) throws -> VerificationReport {
        let path = try filePath(of: configuration, for: "verify")
        do {
            return VerificationReport(try Store.verifyFiles(atPath: path))
        } catch {
            throw closedFileError(error, path: path)
        }
    }

    /// Copies every object of a closed, damaged Realm that can still be read into a new Realm file,
    /// skipping what sits on damaged pages, and reports what was lost.
    ///
    /// The objects of every page that checks out are kept (a damaged page loses the objects on it,
    /// or below it in its tree), then every commit log record after the last checkpoint that
    /// still applies is applied (a record that changes a lost object is skipped whole), links to
    /// lost objects are removed, and the result is written as a new, compact Realm at
    /// `destination` with its indexes rebuilt. The damaged files are only read. Everything
    /// salvaged is held in memory until it is written. Open the new Realm with the same schema to
    /// read what was saved, or to go on with it in place of the damaged one.
    ///
    /// ```swift
    /// let report = try Realm.salvage(configuration: damaged, to: Realm.Configuration(fileURL: rescued))
    /// print("\(report.objectsSalvaged) saved, \(report.objectsLost) lost")
    /// let realm = try Realm(fileURL: rescued)
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the damaged Realm.
    ///   - destination: where to write the new Realm (its `fileURL`); nothing may be there yet.
    /// - Returns: what was salvaged and lost, and every damaged place (see ``SalvageReport``).
    /// - Throws: ``Realm/Error/Code/fileExists`` when a Realm is at `destination`; as
    ///   ``verify(configuration:)``; ``Realm/Error/Code/fileAccess`` (or ``Realm/Error/Code/outOfDiskSpace``)
    ///   when writing the new Realm fails.
    /// - Complexity: O(n log n) in the objects salvaged, plus the log.
    public static func salvage(configuration: Configuration, to destination: Configuration) throws -> SalvageReport {
        let path = try filePath(of: configuration, for: "salvage")
        let destinationPath = try filePath(of: destination, for: "salvage into")
        do {
            return SalvageReport(try Store.salvage(atPath: path, toPath: destinationPath))
        } catch {
            throw closedFileError(error, path: path)
        }
    }

    private static func filePath(of configuration: Configuration, for use: String) throws -> String {
        guard case .file(let path) = configuration.storeConfiguration.location else {
            throw Realm.Error(.fail, "Cannot \(use) an in-memory Realm: it has no file")
        }
        return path
    }

    /// The Realm error for a failure of a call that needs the Realm closed.
    private static func closedFileError(_ error: any Swift.Error, path: String) -> Realm.Error {
        if let error = error as? StrataError, error.code == .wrongState || error.code == .alreadyOpenInAnotherProcess {
            return Realm.Error(.alreadyOpen, "'\(path)' is open; close every Realm of it first (\(error.message))",
                               path: path, underlying: error)
        }
        return Realm.Error.wrap(error)
    }
}
