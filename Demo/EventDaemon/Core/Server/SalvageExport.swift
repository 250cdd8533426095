import Foundation
import Strata

/// `strata-eventd --salvage OUT.ndjson`: exports every readable event and alert of a damaged
/// store as NDJSON, skipping (and counting) what sits on damaged pages.
///
/// The store is copied first with `Realm.salvage(configuration:to:)` into a new store beside the
/// output, `OUT.ndjson.strata` (kept: it holds what was saved, intact, and can replace the
/// damaged store with `--data`); then the copy is read. Each event is one line as the protocol
/// writes it (`{"id":…,"type":…,"source":…,"time":…,"payload":…}`, so the lines can be sent to a
/// daemon again), each alert one line `{"alert":{"id":…,"rule":…,"eventId":…,"createdAt":…}}`.
/// The damaged store is only read; the daemon must not be running on it.
public struct SalvageExport {
    /// What a salvage wrote and lost.
    public struct Summary: Sendable {
        /// Events written.
        public var events = 0
        /// Alerts written.
        public var alerts = 0
        /// What the store's salvage found (damage, objects lost, log records skipped).
        public var report: Realm.SalvageReport

        /// The summary as one JSON line: `{"salvaged":{"events":…,"alerts":…,"objectsLost":…,…}}`.
        public var jsonLine: String {
            JSONValue.object(["salvaged": .object([
                "events": .int(Int64(events)), "alerts": .int(Int64(alerts)),
                "objectsLost": .int(Int64(report.objectsLost)),
                "logRecordsSkipped": .int(Int64(report.logRecordsSkipped)),
                "damagedPages": .array(Array(Set(report.damage.compactMap(\.page))).sorted().map { .int(Int64($0)) }),
                "store": .string(report.destinationURL.path),
            ])]).text
        }
    }

    /// The damaged store.
    public let dataPath: String
    /// The NDJSON file to write (replaced if it exists).
    public let outputPath: String

    /// A salvage of the store at `dataPath` into `outputPath`.
    public init(dataPath: String, outputPath: String) {
        self.dataPath = dataPath
        self.outputPath = outputPath
    }

    /// Where the salvaged copy of the store goes.
    public var copyPath: String { outputPath + ".strata" }

    /// Salvages the store and writes the NDJSON.
    ///
    /// - Throws: `Realm.Error` when the store cannot be read at all (missing, open in another
    ///   process) or the copy exists already (`fileExists`: remove `OUT.ndjson.strata` first);
    ///   ``DaemonError`` when the output cannot be written.
    public func run() throws -> Summary {
        let report = try Realm.salvage(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: dataPath)),
                                       to: Realm.Configuration(fileURL: URL(fileURLWithPath: copyPath)))
        var summary = Summary(report: report)
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
              let output = FileHandle(forWritingAtPath: outputPath) else {
            throw DaemonError("--salvage \(outputPath): the file cannot be written")
        }
        defer { try? output.close() }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: copyPath),
                                                                 objectTypes: daemonObjectTypes))
        var buffer = Data()
        func flush(force: Bool = false) throws {
            guard force || buffer.count >= 1 << 20 else { return }
            do {
                try output.write(contentsOf: buffer)
            } catch {
                throw DaemonError("--salvage \(outputPath): \(error)")
            }
            buffer.removeAll(keepingCapacity: true)
        }
        for event in realm.objects(StoredEvent.self) {
            buffer.append(contentsOf: Array((event.json.text + "\n").utf8))
            summary.events += 1
            try flush()
        }
        for alert in realm.objects(Alert.self) {
            buffer.append(contentsOf: Array((JSONValue.object(["alert": alert.json]).text + "\n").utf8))
            summary.alerts += 1
            try flush()
        }
        try flush(force: true)
        return summary
    }
}
