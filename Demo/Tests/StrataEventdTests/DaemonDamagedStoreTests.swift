import Foundation
import Strata
import StrataEventd
import StrataTestSupport
import Testing

/// A damaged page in the daemon's store: the real `strata-eventd` refuses to start with one line
/// naming the file and the pages and exit status 65 (instead of stopping at the first request
/// that reads the page, after every restart), and `--salvage` exports everything readable.
///
/// `STRATA_EVENTD_VERIFY_COST_EVENTS=100000` also measures what the verification at start costs
/// on a store of that many events (printed; the README quotes it).
@Suite("strata-eventd with a damaged store")
struct DaemonDamagedStoreTests {
    static let events = 3_000
    static let alerts = 40

    /// Writes a daemon store at `path` holding `events` events and `alerts` alerts, all in its page
    /// file (a compact copy, as after a checkpoint), and returns the ids of the events.
    private static func makeStore(at path: String, events: Int = events) throws -> Set<String> {
        let scratch = path + ".scratch"
        defer { _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: scratch))) }
        var ids = Set<String>()
        try {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: scratch),
                                                                     objectTypes: daemonObjectTypes))
            try realm.write {
                for index in 0..<events {
                    let event = StoredEvent()
                    event.id = "event-\(index)"
                    event.type = index % 2 == 0 ? "login" : "purchase"
                    event.source = "source-\(index % 7)"
                    event.time = Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
                    event.payload = .string("payload \(index) " + String(repeating: "x", count: 40))
                    event.receivedAt = event.time
                    realm.add(event)
                    ids.insert(event.id)
                }
                for index in 0..<alerts {
                    let alert = Alert()
                    alert.id = "rule:event-\(index)"
                    alert.rule = "rule"
                    alert.eventId = "event-\(index)"
                    alert.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
                    realm.add(alert)
                }
            }
            try realm.writeCopy(toFile: URL(fileURLWithPath: path))
        }()
        return ids
    }

    @Test("a damaged page: the daemon refuses to start with one line naming the file and the pages, exit status 65")
    func refusesToStart() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.strata")
            _ = try Self.makeStore(at: path)
            let damaged = try damageLeafPagesOfLastCheckpoint(storeAt: path, count: 2)
            #expect(damaged.count == 2)
            let (status, standardError) = try DaemonProcess.run(arguments: ["--port", "0", "--data", path])
            #expect(status == StoreCheck.damagedStoreExitStatus, "\(standardError)")
            let lines = standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(standardError)")
            let line = String(lines.first ?? "")
            #expect(line.hasPrefix("strata-eventd: error: \(path) is damaged"), "\(line)")
            #expect(line.contains("pages \(damaged.map(String.init).joined(separator: ", "))"), "\(line)")
            #expect(line.contains("checksum mismatch") && line.contains("--salvage"), "\(line)")
            // Again at the next start: the same refusal, not a crash a supervisor would restart.
            #expect(try DaemonProcess.run(arguments: ["--port", "0", "--data", path]).status == 65)
        }
    }

    @Test("a damaged header is refused the same way, naming page 0; --no-verify skips the check of the pages")
    func damagedHeaderAndNoVerify() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.strata")
            _ = try Self.makeStore(at: path)
            let copy = directory.file("copy.strata")
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            for segment in try FileManager.default.contentsOfDirectory(atPath: directory.path)
            where segment.hasPrefix("store.strata.log.") {
                try FileManager.default.copyItem(atPath: directory.file(segment),
                                                 toPath: directory.file("copy" + segment.dropFirst("store".count)))
            }
            // The copy's only header slot (a compact file is at generation 0): nothing can be read.
            try damageHeaderSlot(0, ofStoreAt: copy)
            let (status, standardError) = try DaemonProcess.run(arguments: ["--port", "0", "--data", copy])
            #expect(status == StoreCheck.damagedStoreExitStatus, "\(standardError)")
            let expected = "strata-eventd: error: \(copy) is damaged (1 damaged place: page 0): page 0 of"
            #expect(standardError.hasPrefix(expected), "\(standardError)")
            // A damaged tree page is found only by the check: without it the daemon starts.
            _ = try damageLeafPagesOfLastCheckpoint(storeAt: path, count: 1)
            let daemon = try DaemonProcess(dataPath: path, extraArguments: ["--no-verify"])
            #expect(daemon.terminate() == 0)
        }
    }

    @Test("--salvage exports every readable event and alert as NDJSON and counts what sat on damaged pages")
    func salvage() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.strata")
            let ids = try Self.makeStore(at: path)
            let damaged = try damageLeafPagesOfLastCheckpoint(storeAt: path, count: 2)
            let output = directory.file("salvage.ndjson")
            let (status, standardError) = try DaemonProcess.run(arguments: ["--data", path, "--salvage", output])
            #expect(status == 0, "\(standardError)")
            let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
            var events = Set<String>(), alerts = 0
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                if let alert = object["alert"] as? [String: Any] {
                    #expect(alert["rule"] as? String == "rule")
                    alerts += 1
                } else {
                    let id = try #require(object["id"] as? String)
                    #expect(ids.contains(id) && object["payload"] as? String != nil, "\(line)")
                    #expect(events.insert(id).inserted, "\(id) twice")
                }
            }
            #expect(alerts == Self.alerts)
            // What sat on the damaged pages is missing, every other event is there.
            #expect(events.count < ids.count && events.count > ids.count / 2, "\(events.count) of \(ids.count)")
            // Each damaged page that held events is reported (a damaged index page loses no event).
            let skipped = standardError.split(separator: "\n").compactMap { line -> UInt64? in
                guard let range = line.range(of: "skipped: page ") else { return nil }
                return UInt64(line[range.upperBound...].prefix { $0.isNumber })
            }
            #expect(!skipped.isEmpty && skipped.allSatisfy(damaged.contains), "\(standardError)")
            // The salvaged copy is an intact store the daemon can start on.
            let copy = Realm.Configuration(fileURL: URL(fileURLWithPath: output + ".strata"))
            #expect(try Realm.verify(configuration: copy).isIntact)
        }
    }

    @Test("what verifying at start costs (STRATA_EVENTD_VERIFY_COST_EVENTS events)",
          .enabled(if: ProcessInfo.processInfo.environment["STRATA_EVENTD_VERIFY_COST_EVENTS"] != nil))
    func verificationCost() throws {
        let count = Int(ProcessInfo.processInfo.environment["STRATA_EVENTD_VERIFY_COST_EVENTS"] ?? "") ?? 100_000
        try withTemporaryDirectory { directory in
            let path = directory.file("store.strata")
            _ = try Self.makeStore(at: path, events: count)
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            for _ in 0..<3 {
                let start = ContinuousClock.now
                let report = try Realm.verify(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
                let elapsed = ContinuousClock.now - start
                #expect(report.isIntact)
                print("verify: \(count) events, \(size / 1_000_000) MB, \(report.pagesChecked) pages in \(elapsed)")
            }
        }
    }
}
