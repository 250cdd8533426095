import Foundation
import StrataEventd
import StrataTestSupport
import Testing

/// The limits on what one subscription may cost everyone else: the CPU of its initial result,
/// the version its paged initial result pins, and the page timeout (progress, not whole pages).
extension DaemonLimitsTests {
    @Test("an initial result over initialBudgetMillis (ORed LIKE patterns over large strings) is cancelled with an error line and counted; another subscriber's update still arrives promptly")
    func costlyInitialResultIsCancelled() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          initialBudgetMillis: 20
          maxTotalPatternLength: 4000
          maxQueryBytes: 8192
        """)
        defer { daemon.terminate() }
        let victim = try subscribedVictim(of: daemon)
        // The audit's query, scaled down: 14 ORed patterns of 250 characters (each within
        // maxPatternLength) over 20 events holding 60 kB strings none of them matches.
        let feeder = try daemon.client()
        let text = String(repeating: "a", count: 60_000)
        try ingest(feeder, (0..<20).map { textEventLine("large-\($0)", text: text) })
        let attacker = try daemon.client()
        attacker.send(line: #"{"subscribe":"\#(costlyLikeQuery(patterns: 14))"}"#)
        #expect(attacker.readLine() == #"{"subscribed":1}"#)
        let error = try #require(attacker.readLine())
        #expect(error.hasPrefix(#"{"error":"subscription cancelled: computing the initial result took "#),
                "\(error.prefix(300))")
        #expect(error.hasSuffix(#"over the budget of 20 ms"}"#), "\(error.prefix(300))")

        try expectVictimServed(feeder: feeder, victim: victim, daemon: daemon,
                               after: "the costly initial result was cancelled")
    }

    @Test("a subscriber still paging its initial result once maxPinnedBytes were committed after its version gets an error line after the pages already queued; counted, the subscription gone, the connection open")
    func pinnedPagingIsCancelled() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: """
        limits:
          maxPinnedBytes: 262144
          initialPageBytes: 65536
        """)
        defer { daemon.terminate() }
        let feeder = try daemon.client()
        let reader = try pagingReader(of: daemon, seededBy: feeder, rounds: 3)
        #expect(reader.readLine()?.hasPrefix(#"{"initial""#) == true)

        // While the reader holds back its pages, twice the bound is committed.
        let big = String(repeating: "z", count: 8_000)
        try ingest(feeder, (0..<64).map { textEventLine("later-\($0)", text: big) })
        #expect(waitUntil(timeout: 30) { (try? daemon.limitCounter("pagingCancelled")) == 1 })

        var line = reader.readLine()
        var pages = 1
        while let page = line, page.hasPrefix(#"{"initial""#) {
            #expect(!page.hasSuffix(#""last":true}}"#))
            pages += 1
            line = reader.readLine()
        }
        print("pages read before the error line: \(pages)")
        let error = try #require(line)
        #expect(error.hasPrefix(#"{"error":"subscription cancelled: the initial result was still being paged after "#),
                "\(error.prefix(300))")
        #expect(try daemon.stats()["subscribers"] as? Int == 0)
        reader.send(line: #"{"stats":true}"#)
        #expect(reader.readLine()?.hasPrefix(#"{"stats""#) == true)
        #expect(try daemon.limitCounter("slowReadersDisconnected") == 0)
    }

    @Test("pageTimeoutSeconds measures progress: a subscriber reading its pages slowly but steadily stays; one that stops reading is disconnected, counted and logged as stalled, not as over the byte limit")
    func pageTimeoutMeasuresProgress() throws {
        let dataPath = DaemonProcess.temporaryPath()
        let daemon = try DaemonProcess(dataPath: dataPath, config: """
        limits:
          pageTimeoutSeconds: 2
          initialPageBytes: 1048576
          maxQueuedOutputBytes: 16777216
        """)
        defer { daemon.terminate() }
        let feeder = try daemon.client()
        let reader = try pagingReader(of: daemon, seededBy: feeder, rounds: 4)

        // For three timeouts the reader takes 16 kB every 100 ms: once the socket buffers are
        // full, a 1 MiB page takes about 6 s to go, yet bytes go every 100 ms.
        let until = ContinuousClock.now + .seconds(6)
        var received = 0
        while ContinuousClock.now < until {
            let count = reader.receive(atMost: 16_384)
            #expect(count > 0)
            if count == 0 { break }
            received += count
            usleep(100_000)
        }
        print("the slow reader took \(received >> 10) KiB in 6 s")
        #expect(try daemon.limitCounter("stalledPagesDisconnected") == 0)
        #expect(try daemon.limitCounter("slowReadersDisconnected") == 0)

        // Then it stops reading.
        #expect(waitUntil(timeout: 30) { (try? daemon.limitCounter("stalledPagesDisconnected")) == 1 })
        #expect(try daemon.limitCounter("slowReadersDisconnected") == 0)
        #expect(try daemon.stats()["subscribers"] as? Int == 0)
        let log = (try? String(contentsOfFile: dataPath + ".log", encoding: .utf8)) ?? ""
        #expect(log.contains("took no byte of its initial result's page for 2 s"), "\(log.suffix(2_000))")
        #expect(!log.contains("does not read its replies"), "\(log.suffix(2_000))")
    }
}

/// The audit's costly subscription: `count` ORed `LIKE` patterns of 250 characters (each within
/// the default `maxPatternLength`) that a text of `a`s never matches, so each evaluation reads
/// the whole text once per pattern.
func costlyLikeQuery(patterns count: Int) -> String {
    let pattern = "*" + String(repeating: "a", count: 248) + "b"
    return (0..<count).map { _ in "payload['text'] LIKE '\(pattern)'" }.joined(separator: " OR ")
}
