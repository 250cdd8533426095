extension Realm.Error {
    /// Kinds of failure, named and numbered as Realm Swift's `Realm.Error.Code`, plus a few codes
    /// of Strata's own (numbered from 1001) for failures Realm reports as exceptions.
    ///
    /// A struct of constants rather than an enum, so that new codes break no `switch`; each
    /// constant is usable with a leading dot, as Realm's enum cases are:
    ///
    /// ```swift
    /// switch error.code {
    /// case .fileNotFound: createIt()
    /// case .schemaMismatch, .invalidDatabase: startOver()
    /// default: report(error)
    /// }
    /// if error.code == .fail { … }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
        /// The code's name, as Realm spells its case.
        public let name: String
        /// The code's number: Realm's `RLMError` raw value for Realm's codes.
        public let rawValue: Int

        init(_ name: String, _ rawValue: Int) {
            self.name = name
            self.rawValue = rawValue
        }

        /// The code with Realm's number `rawValue`, or nil for a number no code has.
        public init?(rawValue: Int) {
            guard let code = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = code
        }

        public var description: String { name }

        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }

        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// Lets `catch Realm.Error.Code.x` (and `catch Realm.Error.x`) match a thrown error by code.
        public static func ~= (code: Code, error: any Swift.Error) -> Bool {
            (error as? Realm.Error)?.code == code
        }

        // MARK: - Realm's codes

        /// A failure no other code covers (Realm: "a general error that occurred when trying to
        /// open a Realm"); also an encryption key, which Strata does not support.
        public static let fail = Code("fail", 1)
        /// A file could not be opened, read, written or synced.
        public static let fileAccess = Code("fileAccess", 2)
        /// The process may not open or create the file in the mode asked for.
        public static let filePermissionDenied = Code("filePermissionDenied", 3)
        /// A file was to be written, but one with the same name already exists.
        public static let fileExists = Code("fileExists", 4)
        /// The file does not exist (opened read-only before it was created, or a file whose
        /// version was asked for).
        public static let fileNotFound = Code("fileNotFound", 5)
        /// Realm's code for a file that needs a format upgrade that was not allowed; Strata reports
        /// a format 1 store opened read-only as ``invalidDatabase`` (the message says to open it
        /// read-write once).
        public static let fileFormatUpgradeRequired = Code("fileFormatUpgradeRequired", 6)
        /// The lock file is in use by a process that cannot share it. Realm's code; Strata
        /// reports another process holding the file as ``alreadyOpen``.
        public static let incompatibleLockFile = Code("incompatibleLockFile", 8)
        /// Not enough address space to map the file. Realm's code; Strata does not map files, so
        /// it does not report it.
        public static let addressSpaceExhausted = Code("addressSpaceExhausted", 9)
        /// The schema does not match the file's and no migration (or a failed one) was given.
        public static let schemaMismatch = Code("schemaMismatch", 10)
        /// The file is open and the operation needs it closed: another process has it open, or
        /// ``Realm/deleteFiles(for:)`` was called while it is open in this process.
        public static let alreadyOpen = Code("alreadyOpen", 12)
        /// A value or argument is not valid: an oversized string or data, a bad map key, a wrong
        /// type, a primary key change.
        public static let invalidInput = Code("invalidInput", 13)
        /// A write failed because the disk is full.
        public static let outOfDiskSpace = Code("outOfDiskSpace", 14)
        /// Realm's code for a file shared in an incompatible way between processes; Strata does
        /// not report it.
        public static let incompatibleSession = Code("incompatibleSession", 15)
        /// Realm's code for a file of a format version it does not read; Strata reports such a
        /// file as ``invalidDatabase``.
        public static let unsupportedFileFormatVersion = Code("unsupportedFileFormatVersion", 16)
        /// Realm's sync code; Strata has no sync and does not report it.
        public static let multipleSyncAgents = Code("multipleSyncAgents", 17)
        /// Realm's sync code; Strata has no sync and does not report it.
        public static let subscriptionFailed = Code("subscriptionFailed", 18)
        /// A file operation failed in a way no more specific code covers.
        public static let fileOperationFailed = Code("fileOperationFailed", 19)
        /// The file is not a Strata file, or it is damaged (a checksum or structural check
        /// failed: the message names the file and offset, ``Realm/Error/underlying`` tells which).
        public static let invalidDatabase = Code("invalidDatabase", 20)
        /// Realm's sync code; Strata has no sync and does not report it.
        public static let incompatibleHistories = Code("incompatibleHistories", 21)
        /// Realm's sync code; Strata has no sync and does not report it.
        public static let noSubscriptionForWrite = Code("noSubscriptionForWrite", 22)

        // MARK: - Strata's codes (Realm raises exceptions for these)

        /// A primary key value is already used by another object of the type.
        public static let primaryKeyExists = Code("primaryKeyExists", 1001)
        /// The schema itself is invalid (two primary keys, an unsupported primary key type).
        public static let invalidSchema = Code("invalidSchema", 1002)
        /// Writing is not possible: the Realm was opened read-only.
        public static let readOnly = Code("readOnly", 1003)
        /// The number of pinned versions exceeded `maximumNumberOfActiveVersions`.
        public static let tooManyActiveVersions = Code("tooManyActiveVersions", 1004)
        /// The operation is not allowed in the current state (e.g. nested `beginWrite`).
        public static let wrongTransactionState = Code("wrongTransactionState", 1005)
        /// A query string is malformed or names a property that does not exist; the message
        /// says where and what was expected.
        public static let invalidQuery = Code("invalidQuery", 1006)

        /// Every code, for ``init(rawValue:)``.
        static let all: [Code] = [
            fail, fileAccess, filePermissionDenied, fileExists, fileNotFound, fileFormatUpgradeRequired,
            incompatibleLockFile, addressSpaceExhausted, schemaMismatch, alreadyOpen, invalidInput, outOfDiskSpace,
            incompatibleSession, unsupportedFileFormatVersion, multipleSyncAgents, subscriptionFailed,
            fileOperationFailed, invalidDatabase, incompatibleHistories, noSubscriptionForWrite,
            primaryKeyExists, invalidSchema, readOnly, tooManyActiveVersions, wrongTransactionState, invalidQuery,
        ]
    }

    // MARK: - Codes on the error type, for `catch Realm.Error.x`

    /// See ``Code/fail``.
    public static let fail = Code.fail
    /// See ``Code/fileAccess``.
    public static let fileAccess = Code.fileAccess
    /// See ``Code/filePermissionDenied``.
    public static let filePermissionDenied = Code.filePermissionDenied
    /// See ``Code/fileExists``.
    public static let fileExists = Code.fileExists
    /// See ``Code/fileNotFound``.
    public static let fileNotFound = Code.fileNotFound
    /// See ``Code/fileFormatUpgradeRequired``.
    public static let fileFormatUpgradeRequired = Code.fileFormatUpgradeRequired
    /// See ``Code/incompatibleLockFile``.
    public static let incompatibleLockFile = Code.incompatibleLockFile
    /// See ``Code/addressSpaceExhausted``.
    public static let addressSpaceExhausted = Code.addressSpaceExhausted
    /// See ``Code/schemaMismatch``.
    public static let schemaMismatch = Code.schemaMismatch
    /// See ``Code/alreadyOpen``.
    public static let alreadyOpen = Code.alreadyOpen
    /// See ``Code/invalidInput``.
    public static let invalidInput = Code.invalidInput
    /// See ``Code/outOfDiskSpace``.
    public static let outOfDiskSpace = Code.outOfDiskSpace
    /// See ``Code/incompatibleSession``.
    public static let incompatibleSession = Code.incompatibleSession
    /// See ``Code/unsupportedFileFormatVersion``.
    public static let unsupportedFileFormatVersion = Code.unsupportedFileFormatVersion
    /// See ``Code/multipleSyncAgents``.
    public static let multipleSyncAgents = Code.multipleSyncAgents
    /// See ``Code/subscriptionFailed``.
    public static let subscriptionFailed = Code.subscriptionFailed
    /// See ``Code/fileOperationFailed``.
    public static let fileOperationFailed = Code.fileOperationFailed
    /// See ``Code/invalidDatabase``.
    public static let invalidDatabase = Code.invalidDatabase
    /// See ``Code/incompatibleHistories``.
    public static let incompatibleHistories = Code.incompatibleHistories
    /// See ``Code/noSubscriptionForWrite``.
    public static let noSubscriptionForWrite = Code.noSubscriptionForWrite
    /// See ``Code/primaryKeyExists``.
    public static let primaryKeyExists = Code.primaryKeyExists
    /// See ``Code/invalidSchema``.
    public static let invalidSchema = Code.invalidSchema
    /// See ``Code/readOnly``.
    public static let readOnly = Code.readOnly
    /// See ``Code/tooManyActiveVersions``.
    public static let tooManyActiveVersions = Code.tooManyActiveVersions
    /// See ``Code/wrongTransactionState``.
    public static let wrongTransactionState = Code.wrongTransactionState
    /// See ``Code/invalidQuery``.
    public static let invalidQuery = Code.invalidQuery
}
