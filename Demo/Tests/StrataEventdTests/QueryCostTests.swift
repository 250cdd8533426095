@testable import StrataEventd
import Testing

@Suite("Subscription cost bounds and access checks")
struct QueryCostTests {
    private var limits: DaemonLimits {
        var limits = DaemonLimits()
        limits.maxPatternLength = 8
        limits.maxQueryBytes = 200
        return limits
    }

    @Test("a pattern operand past the limit is refused wherever it sits in the predicate", arguments: [
        "source LIKE '*12345678'",
        "type == 'a' OR NOT (source CONTAINS[c] '123456789')",
        "'123456789' BEGINSWITH source",
        "source ENDSWITH {'a', '123456789'}",
        "SUBQUERY(payload, $x, $x LIKE '123456789').@count > 0",
    ])
    func longPatternRefused(query: String) {
        #expect(throws: IngestRejection.patternTooLong(9, limit: 8)) {
            try QueryCost.check(query: query, sort: nil, limits: limits)
        }
    }

    @Test("long operands of other operators, and patterns within the limit, pass")
    func otherOperandsPass() throws {
        try QueryCost.check(query: "source == '1234567890123' AND type LIKE '12345678'", sort: nil, limits: limits)
        try QueryCost.check(query: "source ==", sort: nil, limits: limits)     // the parse error comes later
    }

    @Test("patterns each within the limit are refused when together they pass the total limit, wherever they sit",
          arguments: [
              "source LIKE '*123456' OR type LIKE '123456*' OR source CONTAINS '1234567'",
              "source ENDSWITH {'1234567', '1234567', '1234567'}",
              "source BEGINSWITH '1234567' AND SUBQUERY(payload, $x, $x LIKE '1234567' OR $x LIKE '1234567').@count > 0",
          ])
    func totalPatternLengthRefused(query: String) {
        var limits = limits
        limits.maxTotalPatternLength = 20
        #expect(throws: IngestRejection.patternsTooLong(21, count: 3, limit: 20)) {
            try QueryCost.check(query: query, sort: nil, limits: limits)
        }
    }

    @Test("patterns that add up to the total limit pass, and other operands do not count")
    func totalPatternLengthWithin() throws {
        var limits = limits
        limits.maxTotalPatternLength = 16
        try QueryCost.check(query: "source LIKE '*1234567' OR type CONTAINS '12345678' OR source == '123456789'",
                            sort: nil, limits: limits)
    }

    @Test("by default the audit's fourteen ORed LIKE patterns of 250 characters are refused up front")
    func auditQueryRefusedByDefault() {
        let pattern = "*" + String(repeating: "a", count: 248) + "b"
        let query = (0..<14).map { _ in "payload['text'] LIKE '\(pattern)'" }.joined(separator: " OR ")
        var limits = DaemonLimits()
        limits.maxQueryBytes = 1 << 20
        #expect(throws: IngestRejection.patternsTooLong(14 * 250, count: 14, limit: 1_024)) {
            try QueryCost.check(query: query, sort: nil, limits: limits)
        }
    }

    @Test("the query length counts the sort key path too")
    func queryLength() {
        let query = "source == '\(String(repeating: "x", count: 180))'"
        #expect(throws: IngestRejection.self) { try QueryCost.check(query: query, sort: "receivedAt", limits: limits) }
        #expect(throws: Never.self) { try QueryCost.check(query: query, sort: nil, limits: limits) }
    }

    @Test("the auth line must carry exactly the token")
    func authLine() {
        let token = Array("s3cret".utf8)
        #expect(AccessControl.admits(Array(#"{"auth":"s3cret"}"#.utf8), token: token))
        for line in [#"{"auth":"s3cre"}"#, #"{"auth":"s3cret!"}"#, #"{"auth":"S3cret"}"#, #"{"auth":""}"#,
                     #"{"auth":"s3cret","x":1}"#, #"{"auth":7}"#, #"["s3cret"]"#, "s3cret", ""] {
            #expect(!AccessControl.admits(Array(line.utf8), token: token), "\(line)")
        }
    }

    @Test("loopback is 127.0.0.0/8 only")
    func loopback() {
        #expect(AccessControl.isLoopback("127.0.0.1") && AccessControl.isLoopback("127.1.2.3"))
        #expect(!AccessControl.isLoopback("0.0.0.0") && !AccessControl.isLoopback("10.0.0.1")
                && !AccessControl.isLoopback("localhost") && !AccessControl.isLoopback("128.0.0.1"))
    }
}

@Suite("Limits configuration")
struct DaemonLimitsConfigTests {
    @Test("the limits section reads each key, keeps defaults for the rest, and refuses a non-positive limit")
    func limitsSection() throws {
        let config = try DaemonConfig.load(yaml: """
        limits:
          maxConnections: 7
          maxQueuedOutputBytes: 4096
          subscriptionBudgetMillis: 20
          maxTotalPatternLength: 300
          initialBudgetMillis: 250
          maxPinnedBytes: 1048576
        """)
        var expected = DaemonLimits()
        expected.maxConnections = 7
        expected.maxQueuedOutputBytes = 4_096
        expected.subscriptionBudgetMillis = 20
        expected.maxTotalPatternLength = 300
        expected.initialBudgetMillis = 250
        expected.maxPinnedBytes = 1 << 20
        #expect(config.limits == expected)
        #expect(try DaemonConfig.load(yaml: "maxDepth: 4").limits == DaemonLimits())
        #expect { try DaemonConfig.load(yaml: "limits:\n  maxPatternLength: 0\n") } throws: { error in
            "\(error)".contains("limits.maxPatternLength must be positive")
        }
    }
}
