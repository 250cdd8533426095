import Foundation
import StrataEngine

/// The block a configuration runs to migrate a Realm from an older schema version, as Realm
/// Swift's top-level `MigrationBlock`: the same type as ``Realm/MigrationBlock``.
public typealias MigrationBlock = Realm.MigrationBlock

/// The block ``Migration/enumerateObjects(ofType:_:)`` calls with each object's old form
/// (read-only) and new form (writable; nil when the type is no longer in the schema), as Realm
/// Swift's `MigrationObjectEnumerateBlock`.
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

/// The schema version of the Realm file at `fileURL`, as Realm Swift's `schemaVersionAtURL`.
///
/// Reads the file without migrating it; when the Realm is open in this process, reads its
/// newest version.
///
/// ```swift
/// let version = try schemaVersionAtURL(Realm.Configuration.defaultConfiguration.fileURL!)
/// ```
///
/// - Parameters:
///   - fileURL: The Realm's file.
///   - encryptionKey: Must be nil: Strata does not support encryption.
/// - Returns: The schema version the file was last opened with.
/// - Throws: ``Realm/Error/Code/invalidDatabase`` when there is no file at `fileURL` ("Realm at
///   path '…' has not been initialized.", as Realm says), when the file is not a Realm (or is
///   damaged, or has no schema version because no Realm was ever opened on it),
///   ``Realm/Error/Code/fileAccess`` when `fileURL` is not a regular file, ``Realm/Error/Code/alreadyOpen``
///   when another process has it open, ``Realm/Error/Code/fail`` when an encryption key is given.
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    if encryptionKey != nil {
        throw Realm.Error(.fail, "Encryption is not supported by Strata yet; read the file without an encryptionKey",
                          path: fileURL.path)
    }
    let snapshot: Snapshot
    do {
        snapshot = try Store.newestSnapshot(atPath: fileURL.path)
    } catch let error as StrataError where error.code == .fileNotFound {
        throw Realm.Error(.invalidDatabase, "Realm at path '\(fileURL.path)' has not been initialized.",
                          path: fileURL.path, underlying: error)
    } catch {
        throw Realm.Error.opening(error, path: fileURL.path)
    }
    guard let version = SchemaSetup.storedSchemaVersion(in: snapshot) else {
        throw Realm.Error(.invalidDatabase, "The file has no schema version: no Realm was ever opened on it.",
                          path: fileURL.path)
    }
    return version
}

extension Realm {
    /// Opens the Realm of `configuration` long enough to run its migration, as Realm Swift's
    /// `performMigration(for:)`: what opening it does anyway, at a moment of the caller's choosing.
    ///
    /// Does nothing more when a Realm of the configuration is already open on this thread (it
    /// was migrated when it opened).
    ///
    /// - Throws: as ``init(configuration:)``: ``Realm/Error/Code/schemaMismatch`` when the
    ///   migration fails or the schema version is lower than the file's, and the file errors.
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        _ = try Realm(configuration: configuration)
    }
}
