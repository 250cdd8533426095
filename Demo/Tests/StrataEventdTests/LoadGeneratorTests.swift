import Foundation
import StrataEventd
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Load generator")
struct LoadGeneratorTests {
    @Test("a daemon that closes the connection with events unanswered ends the run with a report, and the generator's process goes on")
    func connectionClosedMidRun() throws {
        // The server reads every event (the sender finishes first), answers some, and closes:
        // the generator used to trap as its last thread ended (a libdispatch semaphore freed with
        // fewer places than it started with), which stopped `strata-eventd --demo` on SIGTERM.
        let server = try OneConnectionServer(reading: 20, answering: 5)
        let report = try LoadGenerator(port: server.port, count: 20, connections: 1, idPrefix: "cut").run()
        #expect(report.acknowledged == 5)
        #expect(report.unanswered == 15)
        #expect(server.finished.wait(timeout: .now() + 60) == .success)
    }

    @Test("a closed connection stops a sender that waits for its window")
    func closedConnectionStopsWaitingSender() throws {
        // The window (4) fills before the server answers; the server answers one and ends the
        // stream. The sender, waiting for a place, stops instead of waiting forever (holding the
        // connection open, so the server would never see it closed).
        let server = try OneConnectionServer(reading: 4, answering: 1)
        var generator = LoadGenerator(port: server.port, count: 100, connections: 1, idPrefix: "window")
        generator.window = 4
        let report = try generator.run()
        #expect(report.acknowledged == 1)
        #expect(report.unanswered == 99)
        #expect(server.finished.wait(timeout: .now() + 60) == .success)
    }

    @Test("a daemon that stops answering without closing the connection ends the run after the reply timeout")
    func silentDaemonTimesOut() throws {
        // The server answers 3 of 10 events and then says nothing, holding the connection open:
        // without a reply timeout the generator's reader waited for the fourth reply forever.
        let server = try OneConnectionServer(reading: 10, answering: 3, endingStream: false)
        var generator = LoadGenerator(port: server.port, count: 10, connections: 1, idPrefix: "silent")
        generator.replyTimeout = .seconds(1)
        let started = ContinuousClock.now
        let report = try generator.run()
        #expect(report.acknowledged == 3)
        #expect(report.unanswered == 7)
        #expect(report.description.contains("7 unanswered"))
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(server.finished.wait(timeout: .now() + 60) == .success)
    }

    @Test("the latency probe throws LoadGeneratorNoReply naming the reply it awaited when the daemon closes the connection or falls silent",
          arguments: [true, false])
    func latencyProbeWithoutReply(closing: Bool) throws {
        // The server reads the subscription and answers nothing: the probe used to wait forever
        // (or record a sample from a reply that never came).
        let server = try OneConnectionServer(reading: 1, answering: 0, endingStream: closing)
        var generator = LoadGenerator(port: server.port, count: 0, connections: 1, idPrefix: "probe")
        generator.replyTimeout = .seconds(1)
        let started = ContinuousClock.now
        let error = #expect(throws: LoadGeneratorNoReply.self) {
            _ = try generator.measureSubscriptionLatency(samples: 3)
        }
        #expect(error?.awaiting == "the subscription's confirmation")
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(server.finished.wait(timeout: .now() + 60) == .success)
    }
}

/// A loopback TCP server for one connection: reads `reading` lines, acknowledges the first
/// `answering` of them as the daemon does, ends its side of the stream (unless `endingStream` is
/// false: it then falls silent, the connection open), and closes the connection once the client
/// has closed its own.
private final class OneConnectionServer: Sendable {
    let port: Int
    /// Signalled once the client has closed the connection.
    let finished = DispatchSemaphore(value: 0)

    init(reading lineCount: Int, answering answers: Int, endingStream: Bool = true) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EADDRNOTAVAIL)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let finished = self.finished
        Thread.detachNewThread {
            let connection = accept(listener, nil, nil)
            close(listener)
            var ids: [String] = []
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while ids.count < lineCount {
                let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                pending += chunk[..<count]
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    // {"id":"<id>",…
                    ids.append(String(line.dropFirst(7).prefix { $0 != "\"" }))
                }
            }
            for id in ids.prefix(answers) {
                let reply = Array(#"{"ack":"\#(id)"}"#.utf8) + [10]
                _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            // The end of the stream after the acks, then whatever the client still sends until it
            // closes its end (the generator's threads have ended and released the connection).
            if endingStream { shutdown(connection, Int32(SHUT_WR)) }
            while chunk.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 {}
            close(connection)
            finished.signal()
        }
    }
}
