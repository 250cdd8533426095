import Foundation

/// An event as ingested: `id` (its primary key), `type`, `source`, `time`, `payload`.
public struct IncomingEvent: Sendable, Equatable {
    /// The event's id: its primary key (a duplicate is acknowledged and stored once).
    public var id: String
    /// The event's type.
    public var type: String
    /// Where the event comes from.
    public var source: String
    /// When the event happened (0001-01-01 ..< 10000-01-01).
    public var time: Date
    /// Any JSON, stored as nested `AnyRealmValue` maps and lists.
    public var payload: JSONValue
}

/// What a client line asks for.
public enum Request: Sendable, Equatable {
    /// Store an event (acknowledged once durable).
    case event(IncomingEvent)
    /// Stream a query's results and changes: RQL, optional sort key path and direction, key
    /// paths that count as modifications.
    case subscribe(query: String, sort: String?, ascending: Bool, keyPaths: [String]?)
    /// Stop the subscription: the one `subscribed` numbered, or (nil) whichever there is.
    case unsubscribe(id: Int?)
    /// The daemon's counters.
    case stats
    /// The newest alerts (of one rule, when given), at most `limit`.
    case alerts(rule: String?, limit: Int)
    /// A liveness check: `{"pong":true}`.
    case ping
    /// The daemon's and the protocol's versions.
    case version
}

/// Parses request lines, refusing bad input with a reason and never trapping.
public struct RequestParser: Sendable {
    /// The deepest nesting a line may have.
    public var maxDepth: Int
    /// The event types accepted (nil: any), compared by their UTF-8 bytes.
    public var knownTypes: Set<String>?

    /// A parser refusing nesting deeper than `maxDepth` and types outside `knownTypes` (nil: any).
    public init(maxDepth: Int = 32, knownTypes: Set<String>? = nil) {
        self.maxDepth = maxDepth
        self.knownTypes = knownTypes
    }

    /// The request on one line (without its newline).
    ///
    /// - Throws: ``IngestRejection`` naming what was wrong.
    public func parse(_ line: some Collection<UInt8>) throws(IngestRejection) -> Request {
        let bytes = Array(line)
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .invalidUTF8 }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maxDepth: maxDepth)
        } catch {
            if error.isTooDeep { throw .tooDeep(maxDepth) }
            if error.isOutOfRange { throw .outOfRange("number", error.message) }
            throw .malformed(error.message)
        }
        guard case .object(let fields) = value else { throw .malformed("a line must be a JSON object") }
        if let query = fields["subscribe"] { return try subscription(query, fields) }
        if let unsubscribe = fields["unsubscribe"] {
            // `true`, or the number `subscribed` gave.
            if unsubscribe == .bool(true) { return .unsubscribe(id: nil) }
            guard case .int(let id) = unsubscribe else { throw .mistyped("unsubscribe", "true or a subscription number") }
            return .unsubscribe(id: Int(clamping: id))
        }
        if let stats = fields["stats"] {
            try Self.requireTrue(stats, "stats")
            return .stats
        }
        if let alerts = fields["alerts"] { return try Self.alerts(alerts) }
        if let ping = fields["ping"] {
            try Self.requireTrue(ping, "ping")
            return .ping
        }
        if let version = fields["version"] {
            try Self.requireTrue(version, "version")
            return .version
        }
        // An event is a line with any of an event's fields; anything else is no request at all.
        guard Self.eventFields.contains(where: { fields[$0] != nil }) else {
            throw .unknownRequest("unknown request: a line is an event (id, type, source, time, payload), "
                                  + "or has 'subscribe', 'unsubscribe', 'stats', 'alerts', 'ping' or 'version'")
        }
        return .event(try event(fields))
    }

    /// Whether `line` looks like an HTTP request line (`GET / HTTP/1.1`): a method in capitals,
    /// a target, and an `HTTP/` version, separated by single spaces.
    public static func looksLikeHTTP(_ line: some Collection<UInt8>) -> Bool {
        let parts = line.prefix(8_192).split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, (1...16).contains(parts[0].count),
              parts[0].allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }),
              !parts[1].isEmpty else { return false }
        return parts[2].starts(with: "HTTP/".utf8)
    }

    /// The fields of an event line.
    static let eventFields = ["id", "type", "source", "time", "payload"]

    private func event(_ fields: [String: JSONValue]) throws(IngestRejection) -> IncomingEvent {
        func string(_ name: String) throws(IngestRejection) -> String {
            guard let value = fields[name] else { throw .missing(name) }
            guard case .string(let string) = value, !string.isEmpty else { throw .mistyped(name, "a non-empty string") }
            guard string.utf8.count <= Self.maximumStringBytes else { throw .tooLong(name, Self.maximumStringBytes) }
            return string
        }
        let id = try string("id")
        let type = try string("type")
        // By bytes, as the store compares (and queries match) the stored type: a type that is an
        // accepted one in another Unicode form would be stored where no `type == …` finds it.
        if let knownTypes, !knownTypes.contains(where: { $0.utf8.elementsEqual(type.utf8) }) {
            throw .unknownType(type)
        }
        let source = try string("source")
        guard let timeValue = fields["time"] else { throw .missing("time") }
        let time = try Self.time(timeValue)
        let payload = fields["payload"] ?? .null
        try Self.validatePayload(payload)
        return IncomingEvent(id: id, type: type, source: source, time: time, payload: payload)
    }

    private func subscription(_ query: JSONValue, _ fields: [String: JSONValue]) throws(IngestRejection) -> Request {
        guard case .string(let rql) = query else { throw .mistyped("subscribe", "an RQL string") }
        var sort: String?
        var ascending = true
        switch fields["sort"] {
        case nil, .null?: break
        case .string(let keyPath)?: sort = keyPath
        case .object(let object)?:
            guard case .string(let keyPath)? = object["keyPath"] else { throw .mistyped("sort.keyPath", "a string") }
            sort = keyPath
            switch object["ascending"] {
            case nil: break
            case .bool(let value)?: ascending = value
            default: throw .mistyped("sort.ascending", "true or false")
            }
        default: throw .mistyped("sort", "a key path or {\"keyPath\":…, \"ascending\":…}")
        }
        var keyPaths: [String]?
        if let paths = fields["keyPaths"], paths != .null {
            guard case .array(let array) = paths else { throw .mistyped("keyPaths", "an array of strings") }
            keyPaths = try array.map { path throws(IngestRejection) -> String in
                guard case .string(let string) = path else { throw .mistyped("keyPaths", "an array of strings") }
                return string
            }
        }
        return .subscribe(query: rql, sort: sort, ascending: ascending, keyPaths: keyPaths)
    }

    /// A request flag (`{"stats":true}`): only `true` asks; `false`, `1` or `"yes"` are refused,
    /// not guessed at.
    private static func requireTrue(_ value: JSONValue, _ field: String) throws(IngestRejection) {
        guard value == .bool(true) else { throw .mistyped(field, "true") }
    }

    /// The most alerts one `alerts` request returns.
    static let maximumAlerts = 1_000

    /// `{"alerts":true}` (the newest 100), or `{"alerts":{"rule":"big","limit":10}}`.
    private static func alerts(_ value: JSONValue) throws(IngestRejection) -> Request {
        if value == .bool(true) { return .alerts(rule: nil, limit: 100) }
        guard case .object(let options) = value else {
            throw .mistyped("alerts", "true or {\"rule\":…, \"limit\":…}")
        }
        if let unknown = options.keys.sorted().first(where: { $0 != "rule" && $0 != "limit" }) {
            throw .mistyped("alerts.\(unknown)", "no such option (rule, limit)")
        }
        var rule: String?
        switch options["rule"] {
        case nil: break
        case .string(let name)?: rule = name
        default: throw .mistyped("alerts.rule", "a rule's name")
        }
        var limit = 100
        switch options["limit"] {
        case nil: break
        case .int(let number)? where (1...Int64(maximumAlerts)).contains(number): limit = Int(number)
        default: throw .mistyped("alerts.limit", "an integer from 1 to \(maximumAlerts)")
        }
        return .alerts(rule: rule, limit: limit)
    }

}
