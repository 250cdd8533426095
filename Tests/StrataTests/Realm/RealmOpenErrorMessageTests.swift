import Foundation
@testable import Strata
import StrataTestSupport
import Testing

final class OpenErrorItem: Object {
    @Persisted(primaryKey: true) var id: Int
}

/// The codes and messages Realm gives when a file cannot be opened, which apps show and match:
/// a missing read-only file, a path under a file, a file too small to be a Realm, and
/// `schemaVersionAtURL` of a file that does not exist or is not a file.
@Suite("Realm's codes and messages for files that cannot be opened")
struct RealmOpenErrorMessageTests {
    private static func configuration(_ path: String, readOnly: Bool = false) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), readOnly: readOnly, objectTypes: [OpenErrorItem.self])
    }

    /// The error opening `configuration` throws.
    private static func openError(_ configuration: Realm.Configuration) -> Realm.Error? {
        #expect(throws: Realm.Error.self) { _ = try Realm(configuration: configuration) }
    }

    @Test("a missing file opened read-only: fileNotFound, 'Failed to open Realm file at path …: No such file or directory'")
    func missingReadOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("missing.realm")
            let error = Self.openError(Self.configuration(path, readOnly: true))
            #expect(error?.code == .fileNotFound)
            #expect(error?.message == "Failed to open Realm file at path '\(path)': No such file or directory")
            #expect(error?.path == path)
        }
    }

    @Test("a path whose parent is a file: fileOperationFailed, 'parent path is not a directory'")
    func parentIsAFile() throws {
        try withTemporaryDirectory { directory in
            let parent = directory.file("plain")
            try Data("x".utf8).write(to: URL(fileURLWithPath: parent))
            let path = parent + "/inside.realm"
            let error = Self.openError(Self.configuration(path))
            #expect(error?.code == .fileOperationFailed)
            #expect(error?.message == "Failed to open file at path '\(path)': parent path is not a directory")
        }
    }

    @Test("a file of one byte: invalidDatabase, 'file is non-empty but too small (1 bytes) to be a valid Realm.'")
    func tooSmall() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("small.realm")
            try Data([0x2A]).write(to: URL(fileURLWithPath: path))
            let error = Self.openError(Self.configuration(path))
            #expect(error?.code == .invalidDatabase)
            #expect(error?.message
                    == "Failed to open Realm file at path '\(path)': file is non-empty but too small (1 bytes) to be a valid Realm.")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([0x2A]), "the file is left as it was")
        }
    }

    @Test("schemaVersionAtURL of a missing file: invalidDatabase, 'Realm at path … has not been initialized.'; of /dev/null: fileAccess")
    func schemaVersionOfMissingFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("never.realm")
            let error = #expect(throws: Realm.Error.self) { _ = try schemaVersionAtURL(URL(fileURLWithPath: path)) }
            #expect(error?.code == .invalidDatabase)
            #expect(error?.message == "Realm at path '\(path)' has not been initialized.")
            #expect(!FileManager.default.fileExists(atPath: path), "nothing is created")
        }
        let device = #expect(throws: Realm.Error.self) { _ = try schemaVersionAtURL(URL(fileURLWithPath: "/dev/null")) }
        #expect(device?.code == .fileAccess || device?.code == .filePermissionDenied, "\(String(describing: device))")
    }
}
