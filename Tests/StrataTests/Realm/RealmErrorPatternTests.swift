import Foundation
import Strata
import StrataTestSupport
import Testing

// The catch and switch patterns real Realm Swift code uses on `Realm.Error`, written exactly as
// that code writes them (this file imports Strata without @testable, as an app does): each
// test compiles only if the pattern does, and fails if the pattern does not match.

final class ErrorPatternItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

/// A configuration for a file in `directory` that does not exist, opened read-only: opening it
/// throws fileNotFound.
private func missingReadOnly(_ directory: TemporaryDirectory) -> Realm.Configuration {
    Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("missing.realm")), readOnly: true,
                        objectTypes: [ErrorPatternItem.self])
}

/// A configuration for a file in `directory` that is not a Realm: opening it throws
/// invalidDatabase.
private func notARealm(_ directory: TemporaryDirectory) throws -> Realm.Configuration {
    let path = directory.file("text.realm")
    try Data(String(repeating: "not a database\n", count: 64).utf8).write(to: URL(fileURLWithPath: path))
    return Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [ErrorPatternItem.self])
}

@Suite("Realm.Error patterns as Realm Swift code writes them")
struct RealmErrorPatternTests {
    @Test("catch let error as Realm.Error where error.code == .fileNotFound matches a read-only open of a missing file")
    func catchWhereCode() throws {
        try withTemporaryDirectory { directory in
            var matched = false
            do {
                _ = try Realm(configuration: missingReadOnly(directory))
            } catch let error as Realm.Error where error.code == .fileNotFound {
                matched = true
            } catch {
                Issue.record("the where clause did not match \(error)")
            }
            #expect(matched)
        }
    }

    @Test("catch Realm.Error.fileNotFound matches by code, and another code's clause does not")
    func catchStaticCode() throws {
        try withTemporaryDirectory { directory in
            var clause = ""
            do {
                _ = try Realm(configuration: missingReadOnly(directory))
            } catch Realm.Error.schemaMismatch {
                clause = "schemaMismatch"
            } catch Realm.Error.fileNotFound {
                clause = "fileNotFound"
            } catch {
                clause = "other: \(error)"
            }
            #expect(clause == "fileNotFound")
            do {
                _ = try Realm(configuration: notARealm(directory))
            } catch Realm.Error.invalidDatabase {
                clause = "invalidDatabase"
            } catch {
                clause = "other: \(error)"
            }
            #expect(clause == "invalidDatabase")
        }
    }

    @Test("switch error.code with leading-dot cases and a default picks the error's case")
    func switchOnCode() throws {
        func classify(_ error: Realm.Error) -> String {
            switch error.code {
            case .fileAccess: return "access"
            case .fileNotFound: return "missing"
            case .invalidDatabase, .schemaMismatch: return "start over"
            case .incompatibleLockFile, .addressSpaceExhausted, .filePermissionDenied, .fileExists: return "rare"
            default: return "other"
            }
        }
        try withTemporaryDirectory { directory in
            let missing = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: missingReadOnly(directory)) }
            #expect(missing.map(classify) == "missing")
            let foreign = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: notARealm(directory)) }
            #expect(foreign.map(classify) == "start over")
        }
        #expect(classify(Realm.Error(.fileAccess, "disk")) == "access")
        #expect(classify(Realm.Error(.primaryKeyExists, "dup")) == "other")
    }

    @Test("switch error.code ending in @unknown default compiles, as Realm Swift code writes it for Realm's enum")
    func switchWithUnknownDefault() throws {
        func isMissingFile(_ error: Realm.Error) -> Bool {
            switch error.code {
            case .fileNotFound: return true
            case .fail, .fileAccess, .filePermissionDenied, .fileExists, .fileFormatUpgradeRequired,
                 .incompatibleLockFile, .addressSpaceExhausted, .schemaMismatch, .alreadyOpen, .invalidInput,
                 .outOfDiskSpace, .incompatibleSession, .unsupportedFileFormatVersion, .multipleSyncAgents,
                 .subscriptionFailed, .fileOperationFailed, .invalidDatabase, .incompatibleHistories,
                 .noSubscriptionForWrite, .primaryKeyExists, .invalidSchema, .readOnly, .tooManyActiveVersions,
                 .wrongTransactionState, .invalidQuery:
                return false
            @unknown default: return false
            }
        }
        try withTemporaryDirectory { directory in
            let error = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: missingReadOnly(directory)) }
            #expect(error.map(isMissingFile) == true)
        }
        #expect(!isMissingFile(Realm.Error(.readOnly, "read-only")))
    }

    @Test("if case Realm.Error.Code.fail = error.code, and error.code == .fail, match an encryption key's failure")
    func ifCaseCode() throws {
        var config = Realm.Configuration(inMemoryIdentifier: "error-patterns-\(UUID().uuidString)",
                                         objectTypes: [ErrorPatternItem.self])
        config.encryptionKey = Data(repeating: 1, count: 64)
        let error = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: config) }
        let code = try #require(error?.code)
        if case Realm.Error.Code.fail = code {
            // Realm Swift code writes this to test one code.
        } else {
            Issue.record("if case did not match \(code)")
        }
        #expect(code == .fail)
        #expect(code != .fileAccess)
        #expect(Realm.Error.fail == Realm.Error.Code.fail, "the error type's constants are the code's")
    }

    @Test("localizedDescription of a Realm.Error caught as any Error is its message, not Foundation's generic text")
    func localizedDescription() throws {
        try withTemporaryDirectory { directory in
            do {
                _ = try Realm(configuration: notARealm(directory))
                Issue.record("opened a text file")
            } catch {
                let realmError = try #require(error as? Realm.Error)
                #expect(error.localizedDescription == realmError.message)
                #expect(!error.localizedDescription.contains("The operation could not be completed"))
                #expect((error as NSError).localizedDescription == realmError.message)
            }
        }
    }

    @Test("fileURL names the file an error concerns, and is nil when none")
    func fileURL() throws {
        try withTemporaryDirectory { directory in
            let config = try notARealm(directory)
            let error = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: config) }
            #expect(error?.fileURL?.lastPathComponent == "text.realm")
            #expect(error?.fileURL?.path == config.fileURL?.path)
        }
        #expect(Realm.Error(.invalidInput, "no file").fileURL == nil)
    }

    /// Realm Swift 10.54's `RLMError` codes, name and raw value (RLMError.h).
    static let realmCodes: [(Realm.Error.Code, String, Int)] = [
        (.fail, "fail", 1), (.fileAccess, "fileAccess", 2), (.filePermissionDenied, "filePermissionDenied", 3),
        (.fileExists, "fileExists", 4), (.fileNotFound, "fileNotFound", 5),
        (.fileFormatUpgradeRequired, "fileFormatUpgradeRequired", 6),
        (.incompatibleLockFile, "incompatibleLockFile", 8), (.addressSpaceExhausted, "addressSpaceExhausted", 9),
        (.schemaMismatch, "schemaMismatch", 10), (.alreadyOpen, "alreadyOpen", 12), (.invalidInput, "invalidInput", 13),
        (.outOfDiskSpace, "outOfDiskSpace", 14), (.incompatibleSession, "incompatibleSession", 15),
        (.unsupportedFileFormatVersion, "unsupportedFileFormatVersion", 16),
        (.multipleSyncAgents, "multipleSyncAgents", 17), (.subscriptionFailed, "subscriptionFailed", 18),
        (.fileOperationFailed, "fileOperationFailed", 19), (.invalidDatabase, "invalidDatabase", 20),
        (.incompatibleHistories, "incompatibleHistories", 21), (.noSubscriptionForWrite, "noSubscriptionForWrite", 22),
    ]

    @Test("every code of Realm Swift's Realm.Error.Code exists with Realm's name and raw value")
    func realmCodeTable() {
        for (code, name, rawValue) in Self.realmCodes {
            #expect(code.name == name)
            #expect("\(code)" == name)
            #expect(code.rawValue == rawValue, "\(name)")
            #expect(Realm.Error.Code(rawValue: rawValue) == code, "\(name)")
        }
        #expect(Set(Self.realmCodes.map(\.2)).count == Self.realmCodes.count)
        #expect(Realm.Error.Code(rawValue: 7) == nil, "Realm has no code 7")
        // Strata's own codes do not collide with Realm's.
        for code in [Realm.Error.primaryKeyExists, .invalidSchema, .readOnly, .tooManyActiveVersions,
                     .wrongTransactionState, .invalidQuery] {
            #expect(code.rawValue > 1000, "\(code)")
            #expect(Realm.Error.Code(rawValue: code.rawValue) == code)
        }
    }
}
