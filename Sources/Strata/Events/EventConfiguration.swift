/// Gives a model class its own JSON in recorded events, as Realm Swift's
/// `CustomEventRepresentable`: the string replaces the built-in serialization and must be
/// valid JSON.
///
/// ```swift
/// extension Dog: CustomEventRepresentable {
///     func customEventRepresentation() -> String { "{\"dog\":\"\(name)\"}" }
/// }
/// ```
public protocol CustomEventRepresentable {
    /// The object's JSON in events.
    func customEventRepresentation() -> String
}

/// How much a logger is told, as Realm Swift's `SyncLogLevel` (event recording is Strata's
/// only user of it: there is no sync).
public enum SyncLogLevel: Int, Sendable, Comparable {
    /// Nothing is logged.
    case off
    /// Only errors that end the operation.
    case fatal
    /// Errors.
    case error
    /// Errors and warnings.
    case warn
    /// Errors, warnings and high-level progress.
    case info
    /// As `info`, with more detail.
    case detail
    /// As `detail`, with debugging output.
    case debug
    /// As `debug`, with traces of every step.
    case trace
    /// Everything.
    case all

    public static func < (lhs: SyncLogLevel, rhs: SyncLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Turns on event recording for a Realm, as Realm Swift's `EventConfiguration`: set it as
/// ``Realm/Configuration/eventConfiguration`` and use ``Realm/events``.
///
/// Events are written durably to a separate store next to the Realm's file (`<file>.events`;
/// an in-memory Realm gets an in-memory event store). Strata records but never uploads: there
/// is no sync user or partition.
public struct EventConfiguration: Sendable {
    /// Key-value pairs stored with every event, one column per key (see
    /// ``Events/updateMetadata(_:)``).
    public var metadata: [String: String]
    /// Told about recording problems and progress.
    public var logger: (@Sendable (SyncLogLevel, String) -> Void)?
    /// Called with errors that no completion handler receives (an event that could not be
    /// written, an invalid custom representation).
    public var errorHandler: (@Sendable (Swift.Error) -> Void)?

    /// Creates an event configuration.
    public init(metadata: [String: String] = [:], logger: (@Sendable (SyncLogLevel, String) -> Void)? = nil,
                errorHandler: (@Sendable (Swift.Error) -> Void)? = nil) {
        self.metadata = metadata
        self.logger = logger
        self.errorHandler = errorHandler
    }
}
