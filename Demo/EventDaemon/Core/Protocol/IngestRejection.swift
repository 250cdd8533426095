/// Why an input line was refused; each reason is counted and logged, and answered with
/// `{"error":"<reason>","line":<n>}`.
public struct IngestRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// A short stable code, for counters.
    public let code: String
    /// What was wrong, for the reply and the log.
    public let message: String

    /// The message.
    public var description: String { message }

    static func malformed(_ detail: String) -> IngestRejection { .init(code: "malformed", message: "malformed JSON: \(detail)") }
    static let invalidUTF8 = IngestRejection(code: "invalid_utf8", message: "the line is not valid UTF-8")
    static func tooLarge(_ limit: Int) -> IngestRejection {
        .init(code: "too_large", message: "the line is longer than \(limit) bytes")
    }
    static func tooDeep(_ limit: Int) -> IngestRejection {
        .init(code: "too_deep", message: "the JSON is nested deeper than \(limit) levels")
    }
    static func missing(_ field: String) -> IngestRejection { .init(code: "missing_field", message: "missing field '\(field)'") }
    static func mistyped(_ field: String, _ expected: String) -> IngestRejection {
        .init(code: "mistyped_field", message: "field '\(field)' must be \(expected)")
    }
    static func unknownType(_ type: String) -> IngestRejection {
        .init(code: "unknown_type", message: "unknown event type '\(type)'")
    }
    static func unknownRequest(_ detail: String) -> IngestRejection {
        .init(code: "unknown_request", message: detail)
    }
    static func outOfRange(_ field: String, _ detail: String) -> IngestRejection {
        .init(code: "out_of_range", message: "field '\(field)' is out of range: \(detail)")
    }
    static func invalidKey(_ path: String, _ key: String) -> IngestRejection {
        .init(code: "invalid_key",
              message: "payload key \(JSONValue.string(key).text) at '\(path)' is not stored: keys must not start with '$' or contain '.'")
    }
    static func tooLong(_ field: String, _ limit: Int) -> IngestRejection {
        .init(code: "too_large", message: "field '\(field)' is longer than \(limit) bytes")
    }
    static let httpRequest = IngestRejection(
        code: "http_request", message: "this port speaks newline-delimited JSON, not HTTP; closing the connection")
    static func badQuery(_ detail: String) -> IngestRejection { .init(code: "bad_query", message: detail) }
    static func queryTooLong(_ bytes: Int, limit: Int) -> IngestRejection {
        .init(code: "query_too_long", message: "the query is \(bytes) bytes long; the limit is \(limit)")
    }
    static func patternTooLong(_ length: Int, limit: Int) -> IngestRejection {
        .init(code: "pattern_too_long", message: "a LIKE/CONTAINS/BEGINSWITH/ENDSWITH operand is \(length) characters "
                  + "long; the limit is \(limit)")
    }
    static func patternsTooLong(_ total: Int, count: Int, limit: Int) -> IngestRejection {
        .init(code: "patterns_too_long", message: "the query's \(count) LIKE/CONTAINS/BEGINSWITH/ENDSWITH operands are "
                  + "\(total) characters long together; the limit is \(limit)")
    }
    static let truncated = IngestRejection(code: "truncated", message: "the connection closed in the middle of a line")
    static let overloaded = IngestRejection(code: "overloaded", message: "the ingest queue is full; retry later")
    static let shuttingDown = IngestRejection(code: "shutting_down", message: "the daemon is shutting down")
    static func unknownSubscription(_ id: Int) -> IngestRejection {
        .init(code: "unknown_subscription", message: "no subscription \(id) on this connection")
    }
    static func storeFailed(_ detail: String) -> IngestRejection { .init(code: "store_failed", message: "not stored: \(detail)") }
}
