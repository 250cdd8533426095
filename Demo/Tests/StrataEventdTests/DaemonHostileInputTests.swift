#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Strata
@testable import StrataEventd
import StrataTestSupport
import Testing

/// Issue 40's findings against the real process: a line that used to end the daemon, acks for
/// events that were not stored, clients that locked out the rest, and a `stats` reply that grew
/// with what clients sent.
@Suite("strata-eventd against hostile input", .serialized)
struct DaemonHostileInputTests {
    private func storedIDs(_ daemon: DaemonProcess) throws -> [String] {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: daemon.dataPath),
                                                                 objectTypes: daemonObjectTypes))
        return realm.objects(StoredEvent.self).map(\.id)
    }

    @Test("key paths that name no property, or mean nothing, and sorts that are more than a key path are refused with bad_query; the daemon stays up")
    func badKeyPaths() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let client = try daemon.client()
        for keyPaths in [#"["nope"]"#, #"["@links"]"#, #"["Alert.id"]"#, #"["id..type"]"#, #"["."]"#, #"[""]"#,
                         #"["type.count"]"#, #"["payload.amount"]"#] {
            client.send(line: #"{"subscribe":"TRUEPREDICATE","keyPaths":\#(keyPaths)}"#)
            let reply = try #require(client.readLine(), "no reply to key paths \(keyPaths): the daemon died?")
            #expect(reply.contains(#""code":"bad_query""#), "key paths \(keyPaths): \(reply)")
        }
        // A sort key path is one key path, never more of the query.
        for sort in ["id ASC) DISTINCT(type", "id ASC, type", "", " id"] {
            client.send(line: #"{"subscribe":"TRUEPREDICATE","sort":\#(JSONValue.string(sort).text)}"#)
            let reply = try #require(client.readLine())
            #expect(reply.contains(#""code":"bad_query""#) && reply.contains("not one key path"), "sort '\(sort)': \(reply)")
        }
        // Valid key paths still subscribe, and the connection still takes events.
        client.send(line: #"{"subscribe":"TRUEPREDICATE","keyPaths":["payload","type"]}"#)
        #expect(client.readLine()?.hasPrefix(#"{"subscribed""#) == true)
        #expect(client.readLine()?.hasPrefix(#"{"initial""#) == true)
        let writer = try daemon.client()
        writer.send(line: eventLine("after-bad-key-paths"))
        #expect(writer.readLine() == #"{"ack":"after-bad-key-paths"}"#)
        #expect(daemon.isRunning)
        #expect(daemon.terminate() == 0)
    }

    @Test("ids that are one text in two Unicode forms, in one group commit, are two events: both acked, both stored")
    func canonicallyEquivalentIDs() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let pairs = [("caf\u{E9}", "cafe\u{301}"), ("\u{212B}", "\u{C5}"), ("\u{D55C}", "\u{1112}\u{1161}\u{11AB}")]
        let ids = pairs.flatMap { [$0.0, $0.1] }
        #expect(pairs.allSatisfy { $0.0 == $0.1 && Array($0.0.utf8) != Array($0.1.utf8) })
        let client = try daemon.client()
        // One write, so that every event joins the same read and the same group commit.
        client.send(Array(ids.map { eventLine($0) + "\n" }.joined().utf8))
        let acks = ids.compactMap { _ in client.readLine() }
        #expect(acks == ids.map { #"{"ack":\#(JSONValue.string($0).text)}"# })
        // A true duplicate (the same bytes) is still stored once, and its ack says so.
        client.send(line: eventLine(ids[0]))
        #expect(client.readLine() == #"{"ack":\#(JSONValue.string(ids[0]).text),"duplicate":true}"#)
        #expect(daemon.terminate() == 0)
        let stored = try storedIDs(daemon)
        #expect(stored.count == ids.count)
        #expect(Set(stored.map { Array($0.utf8) }) == Set(ids.map { Array($0.utf8) }))
    }

    @Test("a line with a repeated key, in the event or its payload, in the same bytes or another Unicode form, is refused")
    func duplicateKeys() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let client = try daemon.client()
        let lines = [
            #"{"id":"d1","id":"d2","type":"t","source":"s","time":0}"#,
            #"{"id":"d3","type":"t","source":"s","time":0,"payload":{"a":1,"a":2}}"#,
            "{\"id\":\"d4\",\"type\":\"t\",\"source\":\"s\",\"time\":0,\"payload\":{\"caf\u{E9}\":1,\"cafe\u{301}\":2}}",
            #"{"id":"d5","type":"t","source":"s","time":0,"payload":{"x":{"k":1,"k":1}}}"#,
        ]
        for line in lines {
            client.send(line: line)
            let reply = try #require(client.readLine())
            #expect(reply.contains(#""code":"malformed""#) && reply.contains("duplicate key"), "\(line): \(reply)")
        }
        #expect(daemon.terminate() == 0)
        #expect(try storedIDs(daemon).isEmpty)
    }

    @Test("subscribers that hang up are noticed at once: 40 of them do not fill 20 connection slots")
    func subscribersThatHangUp() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: "limits:\n  maxConnections: 20\n")
        defer { daemon.terminate() }
        for round in 0..<40 {
            let client = try daemon.client()
            // A query whose result never changes: nothing is ever written to the subscriber again.
            client.send(line: #"{"subscribe":"type == 'never'"}"#)
            let subscribed = client.readLine()
            #expect(subscribed?.hasPrefix(#"{"subscribed""#) == true, "round \(round): \(subscribed ?? "nil")")
            #expect(client.readLine()?.hasPrefix(#"{"initial""#) == true)
            client.close()
        }
        #expect(waitUntil(timeout: 30) {
            let stats = try? daemon.stats()
            return stats?["subscribers"] as? Int == 0 && stats?["connections"] as? Int == 1
        })
        let writer = try daemon.client()
        writer.send(line: eventLine("still-open"))
        #expect(writer.readLine() == #"{"ack":"still-open"}"#)
        #expect(try daemon.limitCounter("connectionsRefused") == 0)
        #expect(daemon.terminate() == 0)
    }

    @Test("stats stays small whatever sources clients send: the largest counts, the rest as other, keys cut")
    func boundedStats() throws {
        let config = "counters:\n  topKeys: 5\n  maxKeys: 50\n  maxKeyBytes: 64\n"
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), config: config)
        defer { daemon.terminate() }
        let client = try daemon.client()
        let long = String(repeating: "s", count: 3_000)
        // One-off sources take one another's places among the 50 tracked; "hot", sent throughout, stays.
        let lines = (0..<200).map { n in
            (n % 20 == 0 ? #"{"id":"hot\#(n)","type":"t","source":"hot","time":0}"# + "\n" : "")
                + #"{"id":"e\#(n)","type":"t","source":"\#(n)-\#(long)","time":0}"# + "\n"
        }
        client.send(Array(lines.joined().utf8))
        for _ in 0..<210 { _ = client.readLine() }
        let statsClient = try daemon.client()
        statsClient.send(line: #"{"stats":true}"#)
        let reply = try #require(statsClient.readLine())
        #expect(reply.utf8.count < 4_096, "a stats reply of \(reply.utf8.count) bytes")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])
        let stats = try #require(object["stats"] as? [String: Any])
        let bySource = try #require(stats["bySource"] as? [String: Int])
        #expect(bySource.count == 5)
        #expect(bySource["hot"] == 10)
        #expect(bySource.keys.allSatisfy { $0.utf8.count <= 64 })
        #expect(bySource.values.reduce(0, +) + (stats["bySourceOther"] as? Int ?? 0) == 210)
        #expect(stats["byType"] as? [String: Int] == ["t": 210] && stats["byTypeOther"] as? Int == 0)
        #expect(daemon.terminate() == 0)
    }
}
