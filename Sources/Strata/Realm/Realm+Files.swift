import Foundation
import StrataEngine

/// A Realm's files as a whole, as Realm Swift's `Realm.fileExists(for:)` and
/// `Realm.deleteFiles(for:)`.
///
/// A Realm at `default.strata` is the checkpoint `default.strata`, its commit log segments
/// `default.strata.log.<16 hex digits>`, the lock file `default.strata.lock`, after an
/// interrupted checkpoint `default.strata.tmp`, and with events recorded the event store
/// `default.strata.events` (with files of its own by the same pattern).
extension Realm {
    /// Whether the Realm of `config` exists on disk, as Realm Swift's `fileExists(for:)`.
    ///
    /// An in-memory configuration has no file: false.
    ///
    /// - Complexity: O(n) in the number of entries of the file's directory.
    public static func fileExists(for config: Configuration) -> Bool {
        guard case .file(let path) = config.storeConfiguration.location else { return false }
        return Store.filesExist(atPath: path)
    }

    /// Deletes the Realm's files, as Realm Swift's `deleteFiles(for:)`: the file, its commit log,
    /// its lock file, any leftover temporary checkpoint and its event store.
    ///
    /// The Realm must not be open: not in this process (release every `Realm` of it first) and
    /// not in another one. Once the last `Realm`, object and frozen value of it is released, the
    /// file counts as closed; an automatic checkpoint still running then is waited for.
    ///
    /// ```swift
    /// if try Realm.deleteFiles(for: config) { print("started over") }
    /// ```
    ///
    /// - Returns: whether any file was deleted (false when there was nothing to delete, and for
    ///   an in-memory configuration).
    /// - Throws: ``Realm/Error/Code/alreadyOpen`` when the Realm is open in this process or
    ///   another (with Realm's message, "Cannot delete files of an open Realm: '…' is still in
    ///   use."), ``Realm/Error/Code/fileAccess`` (or ``Realm/Error/Code/filePermissionDenied``)
    ///   when a file cannot be removed.
    @discardableResult
    public static func deleteFiles(for config: Configuration) throws -> Bool {
        guard case .file(let path) = config.storeConfiguration.location else { return false }
        do {
            let deleted = try Store.deleteFiles(atPath: path)
            let eventsDeleted = try Store.deleteFiles(atPath: path + ".events")
            return deleted || eventsDeleted
        } catch let error as StrataError
                    where error.code == .wrongState || error.code == .alreadyOpenInAnotherProcess {
            throw Realm.Error(.alreadyOpen, "Cannot delete files of an open Realm: '\(path)' is still in use.",
                              path: path, underlying: error)
        } catch {
            throw Realm.Error.wrap(error)
        }
    }
}
