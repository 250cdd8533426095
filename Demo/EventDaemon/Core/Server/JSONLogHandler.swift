import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line to standard error (`--log-format
/// json`), for log aggregators: `{"time":"2026-12-07T12:00:00.123Z","level":"warning",
/// "label":"strata-eventd","message":"…","connection":"7","code":"malformed"}`: the time in
/// UTC, the level, the logger's label, the message, and each metadata value as a string field.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    /// Lines from several threads are written whole, one at a time.
    private static let output = Locked(())

    /// A handler for the logger `label`.
    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let text = Self.line(level: event.level, label: label, message: "\(event.message)",
                             metadata: metadata.merging(event.metadata ?? [:]) { $1 }, time: Date())
        Self.output.withLockedValue { _ in FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }

    /// The JSON line of one log record (keys sorted after the fixed ones, values as strings).
    static func line(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, time: Date) -> String {
        var fields: [(String, String)] = [("time", Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(time)),
                                          ("level", level.rawValue), ("label", label), ("message", message)]
        for key in metadata.keys.sorted() where !["time", "level", "label", "message"].contains(key) {
            fields.append((key, "\(metadata[key]!)"))
        }
        return "{" + fields.map { JSONValue.string($0.0).text + ":" + JSONValue.string($0.1).text }.joined(separator: ",") + "}"
    }
}
