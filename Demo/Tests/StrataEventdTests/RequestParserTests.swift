import Foundation
@testable import StrataEventd
import Testing

@Suite("Request parsing")
struct RequestParserTests {
    let parser = RequestParser(maxDepth: 4, knownTypes: ["login", "purchase"])

    private func parse(_ line: String) -> Result<Request, IngestRejection> {
        Result { () throws(IngestRejection) in try parser.parse(Array(line.utf8)) }
    }

    private func code(_ line: String) -> String? {
        if case .failure(let rejection) = parse(line) { return rejection.code }
        return nil
    }

    @Test("a well-formed event parses with a nested payload and either time form")
    func event() throws {
        let line = #"{"id":"e1","type":"login","source":"web","time":"2026-11-24T10:00:00Z","payload":{"user":"ada","tags":["a",1,2.5,true,null]}}"#
        guard case .success(.event(let event)) = parse(line) else { Issue.record("not an event"); return }
        #expect(event.id == "e1" && event.type == "login" && event.source == "web")
        #expect(event.time == Date(timeIntervalSince1970: 1_795_514_400))
        #expect(event.payload == .object(["user": .string("ada"), "tags": .array([.string("a"), .int(1), .double(2.5), .bool(true), .null])]))
        guard case .success(.event(let epoch)) = parse(#"{"id":"e2","type":"login","source":"s","time":1700000000.5}"#) else {
            Issue.record("not an event"); return
        }
        #expect(epoch.time == Date(timeIntervalSince1970: 1_700_000_000.5) && epoch.payload == .null)
    }

    @Test("bad input is refused with a reason, never a trap", arguments: [
        (#"{"id":"e1","type":"login""#, "malformed"),
        ("[1,2]", "malformed"),
        (#"{"type":"login","source":"s","time":1}"#, "missing_field"),
        (#"{"id":5,"type":"login","source":"s","time":1}"#, "mistyped_field"),
        (#"{"id":"","type":"login","source":"s","time":1}"#, "mistyped_field"),
        (#"{"id":"e","type":"login","source":"s","time":"yesterday"}"#, "mistyped_field"),
        (#"{"id":"e","type":"logout","source":"s","time":1}"#, "unknown_type"),
        (#"{"id":"e","type":"login","source":"s","time":1,"payload":[[[[[1]]]]]}"#, "too_deep"),
        (#"{"subscribe":5}"#, "mistyped_field"),
        ("", "malformed"),
    ])
    func rejections(line: String, expected: String) {
        #expect(code(line) == expected)
    }

    @Test("a time or number no 64-bit integer, finite double or supported date holds is refused with out_of_range", arguments: [
        "1e300", "-1e300", "1e19", "-9.3e18", "9223372036854775807", "-9223372036854775808", "9.223372036854775807e18",
        "9223372036854775808", "18446744073709551616", "1e400", "-1e400", "253402300800", "-62135769601",
        #""10000-01-01T00:00:00Z""#,
    ])
    func outOfRangeTimes(time: String) {
        #expect(code(#"{"id":"e","type":"login","source":"s","time":\#(time)}"#) == "out_of_range", "\(time)")
    }

    @Test("NaN and infinity are not JSON: malformed, or mistyped as a time string", arguments: [
        ("NaN", "malformed"), ("-Infinity", "malformed"), ("Infinity", "malformed"), ("nan", "malformed"),
        (#""NaN""#, "mistyped_field"), (#""-inf""#, "mistyped_field"), ("null", "mistyped_field"),
    ])
    func notANumber(time: String, expected: String) {
        #expect(code(#"{"id":"e","type":"login","source":"s","time":\#(time)}"#) == expected, "\(time)")
    }

    @Test("payload numbers beyond Int64 or a double are refused, not rounded", arguments: ["18446744073709551615", "-9223372036854775809", "1e999"])
    func outOfRangePayload(number: String) {
        #expect(code(#"{"id":"e","type":"login","source":"s","time":1,"payload":{"n":\#(number)}}"#) == "out_of_range")
        #expect(code(#"{"id":"e","type":"login","source":"s","time":1,"payload":[\#(number)]}"#) == "out_of_range")
    }

    @Test("the edges of the supported times are accepted, exactly")
    func timeEdges() throws {
        for (time, seconds) in [("-62135769600", -62_135_769_600.0), ("253402300799.5", 253_402_300_799.5),
                                (#""0001-01-01T00:00:00Z""#, -62_135_769_600), (#""9999-12-31T23:59:59Z""#, 253_402_300_799),
                                ("-1", -1), ("0", 0)] {
            guard case .success(.event(let event)) = parse(#"{"id":"e","type":"login","source":"s","time":\#(time)}"#) else {
                Issue.record("\(time) refused")
                continue
            }
            #expect(event.time.timeIntervalSince1970 == seconds, "\(time)")
        }
    }

    @Test("payload keys the store refuses are refused before the event joins a batch", arguments: [
        #"{"a.b":1}"#, #"{"$x":1}"#, #"{"ok":{"deep.er":1}}"#, #"{"ok":[1,{"$set":2}]}"#, #"{".":1}"#, #"{"$":1}"#,
    ])
    func invalidKeys(payload: String) {
        let parser = RequestParser(maxDepth: 8)
        let result = Result { () throws(IngestRejection) in
            try parser.parse(Array(#"{"id":"e","type":"t","source":"s","time":1,"payload":\#(payload)}"#.utf8))
        }
        guard case .failure(let rejection) = result else { Issue.record("\(payload) accepted"); return }
        #expect(rejection.code == "invalid_key", "\(payload): \(rejection)")
    }

    @Test("keys with '$' or '.' elsewhere, empty keys and unusual characters are accepted")
    func unusualKeys() throws {
        let parser = RequestParser(maxDepth: 8)
        let line = #"{"id":"e","type":"t","source":"s","time":1,"payload":{"a$":1,"":2,"\u0000":3,"é":{"x$y":[4]},"🙂":5}}"#
        guard case .event = try parser.parse(Array(line.utf8)) else { Issue.record("not an event"); return }
    }

    @Test("payload nesting is bounded by the store's limit even when the line limit allows more")
    func payloadNesting() {
        let parser = RequestParser(maxDepth: 1_000)
        func line(_ depth: Int) -> String {
            #"{"id":"e","type":"t","source":"s","time":1,"payload":"# + String(repeating: "[", count: depth)
                + String(repeating: "]", count: depth) + "}"
        }
        #expect((try? parser.parse(Array(line(RequestParser.maximumPayloadNesting).utf8))) != nil)
        #expect(throws: IngestRejection.tooDeep(RequestParser.maximumPayloadNesting)) {
            try parser.parse(Array(line(RequestParser.maximumPayloadNesting + 1).utf8))
        }
    }

    @Test("a JSON object that is no request is an unknown request; one with any event field is an event", arguments: [
        (#"{}"#, "unknown_request"), (#"{"hello":1}"#, "unknown_request"), (#"{"ID":"x"}"#, "unknown_request"),
        (#"{"time":1}"#, "missing_field"), (#"{"payload":{}}"#, "missing_field"),
    ])
    func unknownRequests(line: String, expected: String) {
        #expect(code(line) == expected)
    }

    @Test("an HTTP request line is recognised; JSON and other text are not", arguments: [
        ("GET / HTTP/1.1", true), ("POST /events HTTP/1.0", true), ("PRI * HTTP/2.0", true),
        (#"{"id":"GET / HTTP/1.1"}"#, false), ("get / http/1.1", false), ("GET / FTP", false), ("GET HTTP/1.1", false), ("", false),
    ])
    func http(line: String, isHTTP: Bool) {
        #expect(RequestParser.looksLikeHTTP(Array(line.utf8)) == isHTTP)
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        let bytes: [UInt8] = Array(#"{"id":""#.utf8) + [0xFF, 0xFE] + Array(#"","type":"login","source":"s","time":1}"#.utf8)
        #expect(throws: IngestRejection.invalidUTF8) { try parser.parse(bytes) }
    }

    @Test("subscriptions, unsubscribe and stats requests")
    func requests() throws {
        #expect(try parse(#"{"subscribe":"type == 'login'","sort":{"keyPath":"time","ascending":false},"keyPaths":["payload"]}"#).get()
                == .subscribe(query: "type == 'login'", sort: "time", ascending: false, keyPaths: ["payload"]))
        #expect(try parse(#"{"subscribe":"TRUEPREDICATE","sort":"time"}"#).get()
                == .subscribe(query: "TRUEPREDICATE", sort: "time", ascending: true, keyPaths: nil))
        #expect(try parse(#"{"unsubscribe":true}"#).get() == .unsubscribe(id: nil))
        #expect(try parse(#"{"unsubscribe":3}"#).get() == .unsubscribe(id: 3))
        #expect(try parse(#"{"stats":true}"#).get() == .stats)
        #expect(try parse(#"{"ping":true}"#).get() == .ping)
        #expect(try parse(#"{"version":true}"#).get() == .version)
        #expect(try parse(#"{"alerts":true}"#).get() == .alerts(rule: nil, limit: 100))
        #expect(try parse(#"{"alerts":{"rule":"big","limit":5}}"#).get() == .alerts(rule: "big", limit: 5))
    }

    @Test("request flags are true or refused, never guessed from false, 1 or \"yes\"; alerts options are checked")
    func strictFlags() throws {
        for line in [#"{"stats":false}"#, #"{"stats":1}"#, #"{"stats":"yes"}"#, #"{"ping":null}"#, #"{"version":0}"#,
                     #"{"unsubscribe":false}"#, #"{"unsubscribe":"1"}"#,
                     #"{"subscribe":"TRUEPREDICATE","sort":{"keyPath":"time","ascending":"no"}}"#,
                     #"{"alerts":{"limit":0}}"#, #"{"alerts":{"limit":1001}}"#, #"{"alerts":{"rule":3}}"#,
                     #"{"alerts":{"rules":"big"}}"#, #"{"alerts":"big"}"#] {
            guard case .failure(let rejection) = parse(line) else {
                Issue.record("accepted \(line)")
                continue
            }
            #expect(rejection.code == "mistyped_field", "\(line): \(rejection)")
        }
    }

    @Test("the YAML configuration reads every setting and keeps defaults for the rest")
    func config() throws {
        let config = try DaemonConfig.load(yaml: """
        maxLineBytes: 1024
        types: [login, purchase]
        counters:
          windowSeconds: 10
        alerts:
          - name: big
            query: "type == 'purchase'"
        """)
        #expect(config.maxLineBytes == 1024 && config.maxDepth == 32 && config.types == ["login", "purchase"])
        #expect(config.counters.windowSeconds == 10 && config.alerts == [.init(name: "big", query: "type == 'purchase'")])
        #expect(throws: (any Error).self) { try DaemonConfig.load(yaml: "maxLineBytes: lots") }
    }
}
