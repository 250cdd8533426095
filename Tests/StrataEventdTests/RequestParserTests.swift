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
        #expect(try parse(#"{"unsubscribe":true}"#).get() == .unsubscribe)
        #expect(try parse(#"{"stats":true}"#).get() == .stats)
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
