import Foundation

/// What the parser checks so that every event it accepts can be stored: a time the daemon
/// supports, and a payload the store takes (its keys, string sizes and nesting). An event that
/// passes never fails the group commit it joins.
extension RequestParser {
    /// The supported event times, in seconds since 1970: 0001-01-01T00:00:00Z up to (not
    /// including) 10000-01-01T00:00:00Z, the years ISO 8601 writes with four digits (as
    /// Foundation reads and writes them: the Julian calendar before 1582, so year 1 starts two
    /// days before the proleptic Gregorian one). Strata stores a date as 64-bit seconds and
    /// nanoseconds, so these are stored and read back to the microsecond; farther dates are
    /// refused with `out_of_range`.
    public static let supportedTimes: Range<Double> = -62_135_769_600 ..< 253_402_300_800

    /// The longest string stored, in UTF-8 bytes (the store's limit).
    public static let maximumStringBytes = 0xFF_FFFF - 16

    /// The deepest nesting of lists and maps in a payload that the store takes (its limit for a
    /// mixed value).
    public static let maximumPayloadNesting = 100

    /// The event time of a `time` field: ISO 8601 text or epoch seconds (integer or not).
    ///
    /// - Throws: `mistyped_field` for any other value, `out_of_range` for a time outside
    ///   ``supportedTimes``.
    static func time(_ value: JSONValue) throws(IngestRejection) -> Date {
        let seconds: Double
        switch value {
        case .string(let text):
            guard let date = (try? Date(text, strategy: .iso8601))
                ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) else {
                throw .mistyped("time", "an ISO 8601 date or epoch seconds")
            }
            seconds = date.timeIntervalSince1970
        case .int(let integer):
            // Compared as integers: converting first would round 2^63 - 1 up to 2^63.
            guard integer >= Int64(supportedTimes.lowerBound), integer < Int64(supportedTimes.upperBound) else {
                throw outOfRange(String(integer))
            }
            seconds = Double(integer)
        case .double(let number):
            seconds = number
        default:
            throw .mistyped("time", "an ISO 8601 date or epoch seconds")
        }
        guard supportedTimes.contains(seconds) else { throw outOfRange("\(seconds)") }
        return Date(timeIntervalSince1970: seconds)
    }

    private static func outOfRange(_ seconds: String) -> IngestRejection {
        .outOfRange("time", "\(seconds) seconds is outside 0001-01-01T00:00:00Z..<10000-01-01T00:00:00Z")
    }

    /// Checks that the store takes `payload`: map keys neither start with `$` nor contain `.`
    /// (checked on the UTF-8 bytes, so a `.` with a combining mark is refused too: stricter than
    /// the store, never looser), strings fit the store, and lists and maps nest at most
    /// ``maximumPayloadNesting`` deep.
    ///
    /// - Throws: `invalid_key`, `too_large` or `too_deep`, naming where.
    /// - Complexity: O(n) in the payload's size; nothing is allocated unless it throws.
    static func validatePayload(_ payload: JSONValue) throws(IngestRejection) {
        var path: [PathComponent] = []
        try validate(payload, path: &path)
    }

    private enum PathComponent {
        case key(String)
        case index(Int)
    }

    private static func text(_ path: [PathComponent]) -> String {
        path.reduce("payload") { text, component in
            switch component {
            case .key(let key): "\(text).\(key)"
            case .index(let index): "\(text)[\(index)]"
            }
        }
    }

    private static func validate(_ value: JSONValue, path: inout [PathComponent]) throws(IngestRejection) {
        switch value {
        case .string(let string):
            guard string.utf8.count <= maximumStringBytes else { throw .tooLong(text(path), maximumStringBytes) }
        case .array(let elements):
            guard path.count < maximumPayloadNesting else { throw .tooDeep(maximumPayloadNesting) }
            for (index, element) in elements.enumerated() {
                path.append(.index(index))
                try validate(element, path: &path)
                path.removeLast()
            }
        case .object(let fields):
            guard path.count < maximumPayloadNesting else { throw .tooDeep(maximumPayloadNesting) }
            for (key, element) in fields {
                let utf8 = key.utf8
                guard utf8.first != UInt8(ascii: "$"), !utf8.contains(UInt8(ascii: ".")) else {
                    throw .invalidKey(text(path), key)
                }
                guard utf8.count <= maximumStringBytes else { throw .tooLong(text(path) + " key", maximumStringBytes) }
                path.append(.key(key))
                try validate(element, path: &path)
                path.removeLast()
            }
        case .null, .bool, .int, .double:
            break
        }
    }
}
