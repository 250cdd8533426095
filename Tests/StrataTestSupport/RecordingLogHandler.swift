import Logging
import StrataSupport

/// A swift-log handler that keeps every message logged through it, for tests that check what a
/// component logs (a `Logger(label:factory:)` made with ``makeHandler(label:)``).
///
/// ```swift
/// let recorder = RecordingLogHandler.Recorder()
/// let logger = Logger(label: "test") { recorder.makeHandler(label: $0) }
/// ...
/// #expect(recorder.messages.contains { $0.level == .error })
/// ```
public struct RecordingLogHandler: LogHandler {
    /// One message as it was logged.
    public struct Message: Sendable {
        /// The logger's label.
        public var label: String
        /// The level it was logged at.
        public var level: Logger.Level
        /// The text.
        public var text: String
        /// The logger's metadata merged with the message's.
        public var metadata: Logger.Metadata
    }

    /// Where the handlers made from it keep their messages; read it from any thread.
    public final class Recorder: Sendable {
        private let entries = LockedValueBox<[Message]>([])

        /// An empty recorder.
        public init() {}

        /// A handler for a logger labelled `label` that records here.
        public func makeHandler(label: String) -> RecordingLogHandler { RecordingLogHandler(label: label, recorder: self) }

        /// Every message recorded, in order.
        public var messages: [Message] { entries.withLockedValue { $0 } }

        func record(_ message: Message) { entries.withLockedValue { $0.append(message) } }
    }

    private let label: String
    private let recorder: Recorder
    /// The handler's metadata.
    public var metadata: Logger.Metadata = [:]
    /// The handler's level: everything is recorded by default.
    public var logLevel: Logger.Level = .trace

    /// A handler recording into `recorder`.
    public init(label: String, recorder: Recorder) {
        self.label = label
        self.recorder = recorder
    }

    /// The metadata value under `key`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Records the message.
    public func log(event: LogEvent) {
        recorder.record(Message(label: label, level: event.level, text: "\(event.message)",
                                metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}
