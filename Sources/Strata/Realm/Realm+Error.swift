import StrataSupport

extension Realm {
    /// The error Realm operations throw, as Realm Swift's `Realm.Error` (`RLMError`).
    ///
    /// Catch it by type and switch on ``code``, or match a code directly:
    ///
    /// ```swift
    /// do {
    ///     let realm = try Realm(configuration: config)
    /// } catch Realm.Error.fileNotFound {
    ///     // create it first
    /// } catch let error as Realm.Error {
    ///     print(error.code, error.localizedDescription)
    /// }
    /// ```
    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        /// Kinds of failure, named as in Realm Swift. A struct of constants rather than an enum, so
        /// that new codes break no `switch`.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            /// The code's name.
            public let name: String
            /// The code's number, as Realm's `RLMError.Code` raw values.
            public let rawValue: Int

            init(_ name: String, _ rawValue: Int) {
                self.name = name
                self.rawValue = rawValue
            }

            public var description: String { name }

            /// Lets `catch Realm.Error.Code.x` (and `catch Realm.Error.x`) match by code.
            public static func ~= (code: Code, error: any Swift.Error) -> Bool {
                (error as? Realm.Error)?.code == code
            }
        }

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

        /// The message, as Foundation's `localizedDescription` would give it.
        public var localizedDescription: String { message }

        public var description: String { "Realm.Error(\(code)): \(message)" + (path.map { " [\($0)]" } ?? "") }

        /// Any failure not covered by another code.
        public static let fail = Code("fail", 1)
        /// A file could not be opened, read or written.
        public static let fileAccess = Code("fileAccess", 2)
        /// The process may not open the file.
        public static let filePermissionDenied = Code("filePermissionDenied", 3)
        /// A file that should not exist does.
        public static let fileExists = Code("fileExists", 4)
        /// The file does not exist (for example, opened read-only before it was created).
        public static let fileNotFound = Code("fileNotFound", 5)
        /// The file is not a Strata file, or a newer format.
        public static let invalidDatabase = Code("invalidDatabase", 10)
        /// The file is damaged (checksum or structure); the message names the file and offset.
        public static let corruptFile = Code("corruptFile", 11)
        /// The schema does not match the file's and no migration was given.
        public static let schemaMismatch = Code("schemaMismatch", 9)
        /// Another process has the file open.
        public static let alreadyOpen = Code("alreadyOpen", 12)
        /// A value or argument is not valid: a duplicate primary key, an oversized string or
        /// data, a bad map key, a wrong type.
        public static let invalidInput = Code("invalidInput", 13)
        /// A primary key value is already used by another object of the type.
        public static let primaryKeyExists = Code("primaryKeyExists", 14)
        /// The schema itself is invalid (two primary keys, an unsupported primary key type).
        public static let invalidSchema = Code("invalidSchema", 15)
        /// Writing is not possible: a read-only Realm, or an earlier sync failure.
        public static let readOnly = Code("readOnly", 16)
        /// The number of pinned versions exceeded `maximumNumberOfActiveVersions`.
        public static let tooManyActiveVersions = Code("tooManyActiveVersions", 17)
        /// A query string is malformed or names a property that does not exist; the message
        /// says where and what was expected.
        public static let invalidQuery = Code("invalidQuery", 19)
        /// The operation is not allowed in the current state (e.g. nested `beginWrite`).
        public static let wrongTransactionState = Code("wrongTransactionState", 18)

        /// Translates an engine error into the matching Realm error.
        init(_ error: StrataError) {
            let code: Code
            switch error.code {
            case .fileNotFound: code = Self.fileNotFound
            case .fileAccess: code = error.errno == 13 ? Self.filePermissionDenied : Self.fileAccess
            case .invalidFileFormat: code = Self.invalidDatabase
            case .corruptFile: code = Self.corruptFile
            case .alreadyOpenInAnotherProcess: code = Self.alreadyOpen
            case .duplicatePrimaryKey: code = Self.primaryKeyExists
            case .invalidInput: code = Self.invalidInput
            case .schemaMismatch: code = Self.schemaMismatch
            case .readOnly, .poisoned: code = Self.readOnly
            case .tooManyActiveVersions: code = Self.tooManyActiveVersions
            case .wrongState: code = Self.wrongTransactionState
            default: code = Self.fail
            }
            var message = error.message
            if let offset = error.offset { message += " (at offset \(offset))" }
            self.init(code, message, path: error.path, underlying: error)
        }

        /// Wraps any error as a Realm error.
        static func wrap(_ error: any Swift.Error) -> Realm.Error {
            if let error = error as? Realm.Error { return error }
            if let error = error as? StrataError { return Realm.Error(error) }
            return Realm.Error(fail, "\(error)")
        }
    }
}
