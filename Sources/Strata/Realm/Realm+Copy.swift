import Foundation
import StrataEngine
import StrataSupport

extension Realm {
    /// Writes a compacted copy of the Realm to a new file, as Realm Swift's
    /// `writeCopy(toFile:encryptionKey:)`: the version the Realm reads (inside a write
    /// transaction, including what the transaction has written so far), in as few pages as it
    /// needs, with an empty log, as a Realm of its own. The Realm itself is not changed.
    ///
    /// ```swift
    /// try realm.writeCopy(toFile: backupURL)
    /// let backup = try Realm(fileURL: backupURL)
    /// ```
    ///
    /// - Throws: `Realm.Error.fileExists` when a file is at `fileURL`; `Realm.Error.fail` with an
    ///   `encryptionKey` (Strata does not encrypt yet); `Realm.Error.fileAccess` (or
    ///   `outOfDiskSpace`) when writing fails, after removing what was written.
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        verifyThread()
        if encryptionKey != nil {
            throw Realm.Error(Realm.Error.fail, "Encryption is not supported by Strata yet; write the copy without "
                              + "an encryptionKey")
        }
        do {
            try Store.writeCopy(of: readSnapshot, toPath: fileURL.path)
        } catch {
            throw Realm.Error.wrap(error)
        }
    }

    /// Writes a compacted copy of the Realm to the file of `configuration`, as Realm Swift's
    /// `writeCopy(configuration:)`; see ``writeCopy(toFile:encryptionKey:)``.
    ///
    /// - Throws: `Realm.Error.fail` when `configuration` describes an in-memory Realm; as
    ///   ``writeCopy(toFile:encryptionKey:)``.
    public func writeCopy(configuration: Realm.Configuration) throws {
        guard configuration.inMemoryIdentifier == nil, let fileURL = configuration.fileURL else {
            throw Realm.Error(Realm.Error.fail, "Cannot write a copy to an in-memory Realm: give the configuration a "
                              + "fileURL")
        }
        try writeCopy(toFile: fileURL, encryptionKey: configuration.encryptionKey)
    }

    /// Runs `configuration.shouldCompactOnLaunch` when this is the first open of the store in
    /// the process, and compacts the store when it says so.
    static func compactOnLaunchIfAsked(_ store: Store, _ configuration: Configuration) throws {
        guard store.claimFirstOpen(), let shouldCompact = configuration.shouldCompactOnLaunch,
              let usage = store.fileUsage else { return }
        if shouldCompact(Int(clamping: usage.total), Int(clamping: usage.used)) { try store.compact() }
    }
}
