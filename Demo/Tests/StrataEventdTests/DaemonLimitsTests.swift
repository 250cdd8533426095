import Foundation
import StrataEventd
import StrataTestSupport
import Testing

/// The limits of `DaemonLimits`, end to end against the real process: each refuses or
/// disconnects what passes it, counts it in `stats`, and keeps the daemon serving the others.
@Suite("strata-eventd limits end to end", .serialized)
struct DaemonLimitsTests {
    /// Sends the victim's event and checks that its subscriber gets the update within 2 s, that
    /// one subscription was cancelled for its cost, and that the victim is still subscribed.
    func expectVictimServed(feeder: LineClient, victim: LineClient, daemon: DaemonProcess, after what: String) throws {
        let started = ContinuousClock.now
        feeder.send(line: #"{"id":"v1","type":"login","source":"victim","time":1700000000}"#)
        #expect(feeder.readLine() == #"{"ack":"v1"}"#)
        let update = try #require(victim.readLine())
        let delay = ContinuousClock.now - started
        print("victim's update delay after \(what): \(delay)")
        #expect(update.contains(#""id":"v1""#))
        #expect(delay < .seconds(2))
        let stats = try daemon.stats()
        #expect((stats["limits"] as? [String: Any])?["subscriptionsCancelled"] as? Int == 1)
        #expect(stats["subscribers"] as? Int == 1)
    }

    @Test("past maxConnections a new client gets one error line and the close; counted; a freed slot is reused")
    func connectionLimit() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          maxConnections: 2
        """)
        defer { daemon.terminate() }
        let first = try daemon.client()
        var second: LineClient? = try daemon.client()
        for client in [first, second!] {
            client.send(line: #"{"stats":true}"#)
            #expect(client.readLine()?.hasPrefix(#"{"stats""#) == true)
        }
        let third = try daemon.client()
        #expect(third.readLine() == #"{"error":"too many connections (limit 2)"}"#)
        #expect(third.readLine() == nil)

        first.send(line: eventLine("while-full"))
        #expect(first.readLine() == #"{"ack":"while-full"}"#)
        first.send(line: #"{"stats":true}"#)
        #expect(first.readLine()?.contains(#""connectionsRefused":1"#) == true)

        // Closing one frees its slot.
        second = nil
        let admitted = waitUntil(timeout: 30) {
            guard let client = try? daemon.client() else { return false }
            client.send(line: #"{"stats":true}"#)
            return client.readLine()?.hasPrefix(#"{"stats""#) == true
        }
        #expect(admitted)
    }

    @Test("a subscriber that never reads is disconnected once its output passes the bound; the daemon's memory stays bounded")
    func slowReaderIsDisconnected() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          maxQueuedOutputBytes: 1048576
          initialPageBytes: 65536
        """)
        defer { daemon.terminate() }
        // A 10 MB result: more than the kernel's socket buffers hold (about 4 MB here), so its pages stall.
        let feeder = try daemon.client()
        try seedLargeEvents(feeder, rounds: 3)
        let baseline = daemon.residentBytes

        // 30 subscriptions of everything on a connection that never reads, then updates.
        let sleeper = try daemon.client()
        for _ in 0..<30 { sleeper.send(line: #"{"subscribe":"TRUEPREDICATE"}"#) }
        let small = String(repeating: "y", count: 1_000)
        for round in 0..<40 {
            try ingest(feeder, (0..<100).map { textEventLine("flood-\(round)-\($0)", text: small) })
            if try daemon.limitCounter("slowReadersDisconnected") > 0 { break }
        }
        #expect(waitUntil(timeout: 30) { (try? daemon.limitCounter("slowReadersDisconnected")) == 1 })
        let growth = daemon.residentBytes - baseline
        print("slow reader: RSS \(baseline >> 20) MiB before, grew \(growth >> 20) MiB")
        #expect(growth < 64 << 20, "RSS grew by \(growth >> 20) MiB")
        // Still serving.
        feeder.send(line: eventLine("after-slow-reader"))
        #expect(feeder.readLine() == #"{"ack":"after-slow-reader"}"#)
    }

    @Test("a client that completes no line for idleTimeoutSeconds (silent, or trickling bytes without a newline) gets one error line and the close; a subscriber and an active client stay")
    func idleClientsAreClosed() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          idleTimeoutSeconds: 1
        """)
        defer { daemon.terminate() }
        let silent = try daemon.client()
        let trickler = try daemon.client()
        let subscriber = try daemon.client()
        subscriber.send(line: #"{"subscribe":"TRUEPREDICATE"}"#)
        #expect(subscriber.readLine() == #"{"subscribed":1}"#)
        #expect(subscriber.readLine()?.hasPrefix(#"{"initial""#) == true)
        let active = try daemon.client()
        // For 2.5 s (2.5 timeouts): the trickler sends a byte of an unfinished line every 250 ms,
        // the active client a request every 250 ms.
        trickler.send(Array(#"{"id":"#.utf8))
        for _ in 0..<10 {
            usleep(250_000)
            trickler.send(Array("x".utf8))
            active.send(line: #"{"stats":true}"#)
            #expect(active.readLine()?.hasPrefix(#"{"stats""#) == true)
        }
        for client in [silent, trickler] {
            #expect(client.readLine() == #"{"error":"no complete line for 1 s: closed"}"#)
            #expect(client.readLine() == nil)
        }
        #expect(try daemon.limitCounter("idleDisconnected") == 2)

        // The subscriber, idle but listening, still gets updates.
        active.send(line: eventLine("after-idle"))
        #expect(active.readLine() == #"{"ack":"after-idle"}"#)
        #expect(subscriber.readLine()?.contains("after-idle") == true)
    }

    @Test("a subscriber that takes no byte of a page of its initial result for pageTimeoutSeconds is disconnected")
    func unreadPageTimesOut() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          pageTimeoutSeconds: 1
          initialPageBytes: 65536
        """)
        defer { daemon.terminate() }
        let feeder = try daemon.client()
        try seedLargeEvents(feeder, rounds: 2)
        let sleeper = try daemon.client()
        sleeper.send(line: #"{"subscribe":"TRUEPREDICATE"}"#)
        #expect(waitUntil(timeout: 30) { (try? daemon.limitCounter("stalledPagesDisconnected")) == 1 })
        #expect(try daemon.stats()["subscribers"] as? Int == 0)
    }

    @Test("a large initial result arrives in ordered pages, an update made meanwhile follows the last page, and another client's ack is not held up")
    func initialResultInPages() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          initialPageBytes: 8192
        """)
        defer { daemon.terminate() }
        let feeder = try daemon.client()
        let text = String(repeating: "p", count: 200)
        try ingest(feeder, (0..<600).map { textEventLine("page-\($0)", text: text) })

        let subscriber = try daemon.client()
        subscriber.send(line: #"{"subscribe":"TRUEPREDICATE","sort":"id"}"#)
        #expect(subscriber.readLine() == #"{"subscribed":1}"#)
        var pages = [try #require(try initialPage(subscriber.readLine()))]

        // While the subscriber holds back the rest of the pages, another client is served.
        let started = ContinuousClock.now
        feeder.send(line: textEventLine("page-late", text: text))
        #expect(feeder.readLine() == #"{"ack":"page-late"}"#)
        let ackLatency = ContinuousClock.now - started
        print("ack latency while the initial result is paged: \(ackLatency)")
        #expect(ackLatency < .seconds(2))

        while pages.last?.last == false { pages.append(try #require(try initialPage(subscriber.readLine()))) }
        #expect(pages.count > 5)
        #expect(pages.map(\.page) == Array(0..<pages.count))
        #expect(pages.allSatisfy { $0.count == 600 })
        let ids = pages.flatMap(\.ids)
        #expect(ids.count == 600 && ids == ids.sorted())
        let update = try #require(subscriber.readLine())
        #expect(update.hasPrefix(#"{"update""#) && update.contains(#""id":"page-late""#))
    }

    @Test("a costly LIKE subscription is cancelled with an error line and counted; another client's updates still arrive promptly")
    func costlySubscriptionIsCancelled() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          subscriptionBudgetMillis: 20
          maxTotalPatternLength: 4000
          maxQueryBytes: 8192
        """)
        defer { daemon.terminate() }
        let victim = try subscribedVictim(of: daemon)
        // Within the pattern bounds (raised here), but each evaluation reads the text once per pattern.
        let attacker = try daemon.client()
        attacker.send(line: #"{"subscribe":"\#(costlyLikeQuery(patterns: 14))"}"#)
        #expect(attacker.readLine() == #"{"subscribed":1}"#)
        #expect(attacker.readLine()?.hasPrefix(#"{"initial""#) == true)

        let feeder = try daemon.client()
        let text = String(repeating: "a", count: 60_000)
        try ingest(feeder, (0..<5).map { textEventLine("costly-\($0)", text: text) })
        let error = try #require(attacker.readLine())
        #expect(error.hasPrefix(#"{"error":"subscription cancelled: "#), "\(error)")

        // More costly events keep coming; the victim's update is not stuck behind them.
        try ingest(feeder, (5..<10).map { textEventLine("costly-\($0)", text: text) })
        try expectVictimServed(feeder: feeder, victim: victim, daemon: daemon,
                               after: "the costly subscription was cancelled")
    }

    @Test("a LIMIT subscription, re-run over the whole table on every commit, falls under the same budget")
    func limitQueryUnderBudget() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          subscriptionBudgetMillis: 1
        """)
        defer { daemon.terminate() }
        let feeder = try daemon.client()
        try ingest(feeder, (0..<3_000).map { eventLine("row-\($0)") })
        let subscriber = try daemon.client()
        subscriber.send(line: #"{"subscribe":"TRUEPREDICATE SORT(id ASC) LIMIT(10)"}"#)
        #expect(subscriber.readLine() == #"{"subscribed":1}"#)
        #expect(subscriber.readLine()?.contains(#""count":10"#) == true)
        try ingest(feeder, [eventLine("one-more")])
        let error = try #require(subscriber.readLine())
        #expect(error.hasPrefix(#"{"error":"subscription cancelled: "#), "\(error)")
        #expect(try daemon.limitCounter("subscriptionsCancelled") == 1)
    }

    @Test("over-long queries and patterns are refused at subscribe time with a typed error")
    func queryBounds() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          maxQueryBytes: 600
          maxPatternLength: 16
        """)
        defer { daemon.terminate() }
        let client = try daemon.client()
        client.send(line: #"{"subscribe":"source CONTAINS '\#(String(repeating: "z", count: 17))'"}"#)
        #expect(client.readLine()?.contains("operand is 17 characters long; the limit is 16") == true)
        let long = Array(repeating: "type == 'b'", count: 60).joined(separator: " OR ")
        client.send(line: #"{"subscribe":"type == 'a' OR \#(long)"}"#)
        #expect(client.readLine()?.contains("the limit is 600") == true)
        client.send(line: #"{"subscribe":"source BEGINSWITH '\#(String(repeating: "z", count: 16))'"}"#)
        #expect(client.readLine() == #"{"subscribed":3}"#)
        let rejected = try #require(try daemon.stats()["rejected"] as? [String: Any])
        #expect(rejected["pattern_too_long"] as? Int == 1 && rejected["query_too_long"] as? Int == 1)
    }

    // MARK: - Helpers

    /// Sends `lines` and waits for one ack each.
    /// Stores `rounds` × 400 events of 8 kB of text (3.2 MB a round), so that an initial result
    /// of everything is larger than the kernel's socket buffers.
    /// A client subscribed to `source == 'victim'` (an empty result), its initial result read.
    func subscribedVictim(of daemon: DaemonProcess) throws -> LineClient {
        let victim = try daemon.client()
        victim.send(line: #"{"subscribe":"source == 'victim'"}"#)
        #expect(victim.readLine() == #"{"subscribed":1}"#)
        #expect(victim.readLine()?.hasPrefix(#"{"initial""#) == true)
        return victim
    }

    /// A client that subscribed to `TRUEPREDICATE` after `feeder` seeded `rounds` of large
    /// events (a paged initial result), with its `subscribed` reply read.
    func pagingReader(of daemon: DaemonProcess, seededBy feeder: LineClient, rounds: Int) throws -> LineClient {
        try seedLargeEvents(feeder, rounds: rounds)
        let reader = try daemon.client()
        reader.send(line: #"{"subscribe":"TRUEPREDICATE"}"#)
        #expect(reader.readLine() == #"{"subscribed":1}"#)
        return reader
    }

    func seedLargeEvents(_ feeder: LineClient, rounds: Int) throws {
        let big = String(repeating: "x", count: 8_000)
        for round in 0..<rounds {
            try ingest(feeder, (0..<400).map { textEventLine("seed-\(round)-\($0)", text: big) })
        }
    }

    func ingest(_ client: LineClient, _ lines: [String]) throws {
        client.send(Array(lines.map { $0 + "\n" }.joined().utf8))
        for _ in lines {
            let reply = try #require(client.readLine())
            #expect(reply.hasPrefix(#"{"ack""#), "\(reply)")
        }
    }

    private struct InitialPage {
        var count: Int
        var page: Int
        var last: Bool
        var ids: [String]
    }

    private func initialPage(_ line: String?) throws -> InitialPage? {
        guard let line else { return nil }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let initial = try #require(object["initial"] as? [String: Any], "\(line.prefix(200))")
        let objects = try #require(initial["objects"] as? [[String: Any]])
        return InitialPage(count: try #require(initial["count"] as? Int), page: try #require(initial["page"] as? Int),
                           last: try #require(initial["last"] as? Bool),
                           ids: objects.compactMap { $0["id"] as? String })
    }
}

/// An event line whose payload holds `text`.
func textEventLine(_ id: String, source: String = "test", text: String) -> String {
    #"{"id":"\#(id)","type":"login","source":"\#(source)","time":1700000000,"payload":{"text":"\#(text)"}}"#
}
