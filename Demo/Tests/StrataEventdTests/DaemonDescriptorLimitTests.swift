import Foundation
import Strata
import StrataEventd
import StrataTestSupport
import Testing

/// The real daemon under a low descriptor limit (`RLIMIT_NOFILE` 256, soft and hard, as a unit
/// file's `LimitNOFILE=` or `prlimit` would set it) with more clients than descriptors: the
/// daemon caps its connections below the limit, keeping a reserve for its store, so that its
/// checkpoints still find a descriptor for a new log segment; a burst of clients that finds no
/// descriptor at all is closed unserved, counted, and the daemon goes on acknowledging and
/// checkpointing.
@Suite("strata-eventd under a descriptor limit", .serialized)
struct DaemonDescriptorLimitTests {
    @Test("with RLIMIT_NOFILE 256 and 300 clients the daemon lowers maxConnections below the limit, survives accepts that fail with EMFILE, keeps acknowledging and checkpointing, and drains cleanly")
    func moreClientsThanDescriptors() throws {
        let limit = 256
        let path = DaemonProcess.temporaryPath()
        // Checkpoints every 512 KiB of log.
        let daemon = try DaemonProcess(dataPath: path, config: """
        checkpointBytes: 524288
        limits:
          maxConnections: 1000
        """, descriptorLimit: limit)
        defer { daemon.terminate() }
        let cap = limit - DescriptorLimit.reserve
        #expect(daemon.log.contains("maxConnections lowered from 1000 to \(cap)"), "\(daemon.log.suffix(2_000))")

        // Every connection slot taken: one writer, the rest idle.
        let writer = try daemon.client()
        var idle: [LineClient] = []
        for _ in 1..<cap { idle.append(try daemon.client()) }
        idle.last?.send(line: #"{"stats":true}"#)
        #expect(idle.last?.readLine()?.hasPrefix(#"{"stats""#) == true, "the last idle client was not served")
        let refused = try daemon.client()
        #expect(refused.readLine() == #"{"error":"too many connections (limit \#(cap))"}"#)

        // A burst of clients while the daemon is stopped: when it goes on, it accepts them until no
        // descriptor is left (each refused one holds its own until its close completes).
        daemon.send(signal: SIGSTOP)
        var burst: [LineClient] = []
        // (A short read timeout: a client the daemon admitted would wait for a request.)
        for _ in 0..<100 { burst.append(try LineClient(port: daemon.port, timeout: .seconds(2))) }
        daemon.send(signal: SIGCONT)
        var unserved = 0
        for client in burst {
            let reply = client.readLine()
            #expect(reply == nil || reply?.hasPrefix(#"{"error":"too many connections"#) == true, "\(reply ?? "")")
            if reply == nil { unserved += 1 }
        }
        // Some found no descriptor at all (accept failed with EMFILE), and were closed unserved.
        #expect(unserved > 0, "every client of the burst was accepted: the test did not reach EMFILE")

        // The writer is still served, and the store checkpoints (each rotates the log to a new
        // segment and removes the ones it covers) while the clients hold their connections.
        let text = String(repeating: "x", count: 2_000)
        var acknowledged = 0
        for round in 0..<40 where (daemon.logSegmentSequences.last ?? 0) < 3 {
            for n in 0..<200 { writer.send(line: textEventLine("r\(round)-\(n)", text: text)) }
            for _ in 0..<200 where writer.readLine()?.hasPrefix(#"{"ack""#) == true { acknowledged += 1 }
        }
        #expect(acknowledged > 0 && acknowledged % 200 == 0, "\(acknowledged) acknowledged")
        _ = waitUntil(timeout: 60) { (daemon.logSegmentSequences.last ?? 0) >= 3 }
        #expect((daemon.logSegmentSequences.last ?? 0) >= 3, "segments \(daemon.logSegmentSequences)")
        #expect(daemon.isRunning, "\(daemon.log.suffix(2_000))")
        #expect(!daemon.log.contains("refuses writes"), "\(daemon.log.suffix(2_000))")

        writer.send(line: #"{"stats":true}"#)
        let stats = writer.readLine() ?? ""
        #expect(stats.contains(#""connectionsRefused":"#), "\(stats)")
        print("descriptor limit test: \(acknowledged) events acknowledged, log segments \(daemon.logSegmentSequences), "
              + "stats \(stats.prefix(600))")

        idle.removeAll()
        #expect(daemon.terminate() == 0)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                 objectTypes: daemonObjectTypes))
        #expect(realm.objects(StoredEvent.self).count == acknowledged)
    }
}
