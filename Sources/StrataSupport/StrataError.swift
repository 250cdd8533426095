/// The error every layer of Strata throws for failures a user can cause or the system can report.
///
/// One struct with an extensible ``Code`` (a set of static constants, so new codes break no
/// `switch`), a human-readable ``message``, and where it applies the file and byte offset the
/// failure concerns. Catch by code with a pattern:
///
/// ```swift
/// do {
///     try store.beginWrite()
/// } catch StrataError.Code.tooManyActiveVersions {
///     // release frozen snapshots, then retry
/// }
/// ```
public struct StrataError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code.
        public let name: String

        /// Creates a code with `name`.
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// A file could not be opened, read, written or synced.
        public static let fileAccess = Code("fileAccess")
        /// A file that was required does not exist.
        public static let fileNotFound = Code("fileNotFound")
        /// A file that was to be created exists already.
        public static let fileExists = Code("fileExists")
        /// A file is not a Strata file (bad magic or an unknown format version).
        public static let invalidFileFormat = Code("invalidFileFormat")
        /// A checksum or structural check failed inside a file; ``StrataError/path`` and
        /// ``StrataError/offset`` say where.
        public static let corruptFile = Code("corruptFile")
        /// Another process holds the store's lock file.
        public static let alreadyOpenInAnotherProcess = Code("alreadyOpenInAnotherProcess")
        /// An earlier `fsync` failed; the store refuses further writes until it is reopened.
        public static let poisoned = Code("poisoned")
        /// A new commit log segment could not be created (no file descriptor left, no space for
        /// a new file): nothing was written, so the store stays usable and commits go on in the
        /// current segment; the checkpoint that needed the new segment did not run and is retried.
        public static let logRotationFailed = Code("logRotationFailed")
        /// Pinning one more version would exceed `maximumNumberOfActiveVersions`.
        public static let tooManyActiveVersions = Code("tooManyActiveVersions")
        /// A write was attempted on a store opened read-only.
        public static let readOnly = Code("readOnly")
        /// A transaction referred to a table, column or object that does not exist, or gave a
        /// value of the wrong type.
        public static let invalidInput = Code("invalidInput")
        /// An insert would create a second object with the same primary key.
        public static let duplicatePrimaryKey = Code("duplicatePrimaryKey")
        /// The schema given does not match the one stored.
        public static let schemaMismatch = Code("schemaMismatch")
        /// An operation was used in the wrong state (commit without a write, a closed store).
        public static let wrongState = Code("wrongState")

        /// Lets `catch StrataError.Code.x` match errors by code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StrataError)?.code == code
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence that says what failed and, where it helps, what to do.
    public var message: String
    /// The file the failure concerns, if any.
    public var path: String?
    /// The byte offset in ``path`` the failure concerns, if any.
    public var offset: UInt64?
    /// The `errno` value of a failed system call, if any.
    public var errno: Int32?

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String? = nil, offset: UInt64? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
        self.errno = errno
    }

    public var description: String {
        var text = "StrataError(\(code)): \(message)"
        if let path { text += " [file: \(path)" + (offset.map { ", offset: \($0)" } ?? "") + "]" }
        if let errno { text += " [errno \(errno)]" }
        return text
    }
}
