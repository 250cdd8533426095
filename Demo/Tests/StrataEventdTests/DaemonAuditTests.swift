import Foundation
import Strata
@testable import StrataEventd
import StrataTestSupport
import Testing

/// The audit store's table (`<data>.events`), as Realm's Events API lays it out, with the
/// daemon's metadata column.
final class AuditEvent: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var activity: String
    @Persisted var event: String
    @Persisted var data: String?
    @Persisted var timestamp: Date
    @Persisted var daemon: String?
}

@Suite("strata-eventd's audit store", .serialized)
struct DaemonAuditTests {
    @Test("each group commit is audited as one small record, not a second copy of its events")
    func oneRecordPerBatch() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        let client = try daemon.client()
        let bulky = String(repeating: "x", count: 2_000)
        let ids = (0..<200).map { "audit-\($0)" }
        let lines = ids.map { #"{"id":"\#($0)","type":"t","source":"s","time":0,"payload":{"note":"\#(bulky)"}}"# + "\n" }
        client.send(Array((lines + [lines[0]]).joined().utf8))
        for _ in 0...ids.count { _ = client.readLine() }
        #expect(daemon.terminate() == 0)
        let audit = try Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: daemon.dataPath + ".events"), objectTypes: [AuditEvent.self]))
        let records = audit.objects(AuditEvent.self).filter("activity == 'ingest'")
        #expect(!records.isEmpty)
        #expect(records.allSatisfy { $0.event == "batch" && $0.daemon == "strata-eventd" })
        let parsed = try records.map { record in
            try #require(try JSONSerialization.jsonObject(with: Data((record.data ?? "").utf8)) as? [String: Any])
        }
        #expect(parsed.reduce(0) { $0 + ($1["stored"] as? Int ?? 0) } == ids.count)
        #expect(parsed.reduce(0) { $0 + ($1["duplicates"] as? Int ?? 0) } == 1)
        #expect(parsed.first?["firstId"] as? String == ids[0])
        // Nothing of the payloads: a few hundred bytes per commit, not 2 KB per event.
        let recorded = records.reduce(0) { $0 + ($1.data?.utf8.count ?? 0) }
        #expect(recorded < 300 * records.count, "\(recorded) bytes of audit for \(records.count) commits")
    }

    @Test("a long id is cut in the audit record")
    func longIDs() {
        let id = String(repeating: "\u{E9}", count: 100)
        let audited = IngestWriter.auditedID(id)
        #expect(audited.utf8.count <= 128 && audited.hasSuffix("…") && id.hasPrefix(audited.dropLast()))
        #expect(IngestWriter.auditedID("short") == "short")
    }
}
