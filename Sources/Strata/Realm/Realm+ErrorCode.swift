extension Realm.Error {
    /// Kinds of failure, named and numbered as Realm Swift's `Realm.Error.Code` (`RLMError`),
    /// plus a few codes of Strata's own (numbered from 1001) for failures Realm raises as
    /// exceptions.
    ///
    /// An enum, as Realm's is, so Realm Swift code compiles unchanged: cases with a leading dot,
    /// `==`, `if case`, `Code(rawValue:)`, and a `switch` that ends in `default:` or
    /// `@unknown default:` (a `switch` must have one: Strata's own codes are cases too).
    ///
    /// ```swift
    /// switch error.code {
    /// case .fileNotFound: createIt()
    /// case .schemaMismatch, .invalidDatabase: startOver()
    /// default: report(error)
    /// }
    /// if error.code == .fail { … }
    /// ```
    public enum Code: Int, Sendable, CaseIterable {
        /// A failure no other code covers (Realm: "a general error that occurred when trying to
        /// open a Realm"); also an encryption key, which Strata does not support.
        case fail = 1
        /// A file could not be opened, read, written or synced.
        case fileAccess = 2
        /// The process may not open or create the file in the mode asked for.
        case filePermissionDenied = 3
        /// A file was to be written, but one with the same name already exists.
        case fileExists = 4
        /// The file does not exist (opened read-only before it was created, or a file whose
        /// version was asked for).
        case fileNotFound = 5
        /// Realm's code for a file that needs a format upgrade that was not allowed; Strata reports
        /// a format 1 store opened read-only as ``invalidDatabase`` (the message says to open it
        /// read-write once).
        case fileFormatUpgradeRequired = 6
        /// The lock file is in use by a process that cannot share it. Realm's code; Strata
        /// reports another process holding the file as ``alreadyOpen``.
        case incompatibleLockFile = 8
        /// Not enough address space to map the file. Realm's code; Strata does not map files, so
        /// it does not report it.
        case addressSpaceExhausted = 9
        /// The schema does not match the file's and no migration (or a failed one) was given.
        case schemaMismatch = 10
        /// The file is open and the operation needs it closed: another process has it open, or
        /// ``Realm/deleteFiles(for:)`` was called while it is open in this process.
        case alreadyOpen = 12
        /// A value or argument is not valid: an oversized string or data, a bad map key, a wrong
        /// type, a primary key change.
        case invalidInput = 13
        /// A write failed because the disk is full.
        case outOfDiskSpace = 14
        /// Realm's code for a file shared in an incompatible way between processes; Strata does
        /// not report it.
        case incompatibleSession = 15
        /// Realm's code for a file of a format version it does not read; Strata reports such a
        /// file as ``invalidDatabase``.
        case unsupportedFileFormatVersion = 16
        /// Realm's sync code; Strata has no sync and does not report it.
        case multipleSyncAgents = 17
        /// Realm's sync code; Strata has no sync and does not report it.
        case subscriptionFailed = 18
        /// A file operation failed in a way no more specific code covers.
        case fileOperationFailed = 19
        /// The file is not a Strata file, or it is damaged (a checksum or structural check
        /// failed: the message names the file and offset, ``Realm/Error/underlying`` tells which).
        case invalidDatabase = 20
        /// Realm's sync code; Strata has no sync and does not report it.
        case incompatibleHistories = 21
        /// Realm's sync code; Strata has no sync and does not report it.
        case noSubscriptionForWrite = 22
        // MARK: Strata's codes (Realm raises exceptions for these)

        /// A primary key value is already used by another object of the type.
        case primaryKeyExists = 1001
        /// The schema itself is invalid (two primary keys, an unsupported primary key type).
        case invalidSchema = 1002
        /// Writing is not possible: the Realm was opened read-only.
        case readOnly = 1003
        /// The number of pinned versions exceeded `maximumNumberOfActiveVersions`.
        case tooManyActiveVersions = 1004
        /// The operation is not allowed in the current state (e.g. nested `beginWrite`).
        case wrongTransactionState = 1005
        /// A query string is malformed or names a property that does not exist; the message
        /// says where and what was expected.
        case invalidQuery = 1006

        /// The code's name, as Realm spells its case.
        public var name: String { String(describing: self) }

        /// Lets `catch Realm.Error.x` match a thrown error by its code, as in Realm Swift.
        public static func ~= (code: Code, error: any Swift.Error) -> Bool {
            (error as? Realm.Error)?.code == code
        }
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
