import Foundation
import StrataSupport

extension Realm {
    /// The error Realm operations throw, as Realm Swift's `Realm.Error` (`RLMError`).
    ///
    /// Catch it by type and look at ``code``, or match a code directly, as with Realm Swift:
    ///
    /// ```swift
    /// do {
    ///     let realm = try Realm(configuration: config)
    /// } catch Realm.Error.fileNotFound {
    ///     // create it first
    /// } catch let error as Realm.Error where error.code == .schemaMismatch {
    ///     // migrate
    /// } catch {
    ///     print(error.localizedDescription) // the message, through LocalizedError
    /// }
    /// ```
    public struct Error: Swift.Error, LocalizedError, CustomStringConvertible, Sendable {
        /// What kind of failure this is.
        public let code: Code
        /// A sentence that says what failed.
        public let message: String
        /// The file concerned, if any.
        public let path: String?
        /// The engine error underneath, if any.
        public let underlying: StrataError?

        /// Creates an error.
        public init(_ code: Code, _ message: String, path: String? = nil, underlying: StrataError? = nil) {
            self.code = code
            self.message = message
            self.path = path
            self.underlying = underlying
        }

        /// The file the error concerns, as Realm Swift's `Realm.Error.fileURL`; nil when none.
        public var fileURL: URL? { path.map { URL(fileURLWithPath: $0) } }

        /// The message: what `localizedDescription` shows, also on the error caught as `any Error`.
        public var errorDescription: String? { message }

        /// The message (the same as Foundation gives for the error caught as `any Error`).
        public var localizedDescription: String { message }

        public var description: String { "Realm.Error(\(code)): \(message)" + (path.map { " [\($0)]" } ?? "") }

        /// Translates an engine error into the matching Realm error.
        init(_ error: StrataError) {
            var message = error.message
            if let offset = error.offset { message += " (at offset \(offset))" }
            self.init(Self.code(for: error), message, path: error.path, underlying: error)
        }

        /// Realm's code for an engine error, as Realm Core reports the same failure: a file that
        /// is not a Strata file or is damaged is `invalidDatabase`, and a failed write or sync
        /// (and every write after it, while the store refuses writes) is `outOfDiskSpace` when
        /// the disk was full, otherwise `fileAccess` (or `filePermissionDenied`).
        static func code(for error: StrataError) -> Code {
            switch error.code {
            case .fileNotFound: return .fileNotFound
            case .fileExists: return .fileExists
            case .fileAccess, .poisoned, .logRotationFailed:
                switch error.errno {
                case 28?: return .outOfDiskSpace  // ENOSPC
                case 1?, 13?, 30?: return .filePermissionDenied  // EPERM, EACCES, EROFS
                case 17?: return .fileExists  // EEXIST
                default: return .fileAccess
                }
            case .invalidFileFormat, .corruptFile: return .invalidDatabase
            case .alreadyOpenInAnotherProcess: return .alreadyOpen
            case .duplicatePrimaryKey: return .primaryKeyExists
            case .invalidInput: return .invalidInput
            case .schemaMismatch: return .schemaMismatch
            case .readOnly: return .readOnly
            case .tooManyActiveVersions: return .tooManyActiveVersions
            case .wrongState: return .wrongTransactionState
            default: return .fail
            }
        }

        /// Wraps any error as a Realm error.
        static func wrap(_ error: any Swift.Error) -> Realm.Error {
            if let error = error as? Realm.Error { return error }
            if let error = error as? StrataError { return Realm.Error(error) }
            return Realm.Error(.fail, "\(error)")
        }
    }
}
