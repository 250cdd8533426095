@_spi(Benchmarks) import StrataEngine
import Foundation
import GRDB
import Strata

/// One phase of the scale series for one store, run in a fresh child process of this executable
/// (`--scale-child <strata|grdb> <build|open|checkpoint|release|kill|restart-open> <rows> <directory>`;
/// the last three for Strata only, see ``ScaleRestart``) so that its memory
/// and I/O counters are its own. Prints one line of `key=value` figures.
enum ScaleChild {
    static let flag = "--scale-child"
    /// Rows per write transaction while building.
    static let batch: Int64 = 50_000
    static let lookups = 10_000
    /// The single-row updates at random keys before the measured checkpoint: 20,000, or
    /// `STRATA_SCALE_UPDATES` (read by the parent and its children alike).
    static let updates = ProcessInfo.processInfo.environment["STRATA_SCALE_UPDATES"].flatMap(Int.init) ?? 20_000

    static func main(_ arguments: [String]) throws -> Never {
        guard arguments.count == 4, let rows = Int64(arguments[2]) else {
            throw SanityFailure(description: "usage: \(flag) <strata|grdb> <build|open|checkpoint> <rows> <directory>")
        }
        let (store, phase, directory) = (arguments[0], arguments[1], arguments[3])
        let figures: [(String, Double)]
        switch (store, phase) {
        case ("strata", "build"): figures = try strataBuild(rows, directory)
        case ("strata", "open"): figures = try strataOpen(rows, directory)
        case ("strata", "checkpoint"): figures = try strataCheckpoint(rows, directory)
        case ("strata", "release"): figures = try ScaleRestart.release(directory)
        case ("strata", "kill"): try ScaleRestart.kill(directory)
        case ("strata", "restart-open"): figures = try ScaleRestart.open(directory)
        case ("grdb", "build"): figures = try grdbBuild(rows, directory)
        case ("grdb", "open"): figures = try grdbOpen(rows, directory)
        case ("grdb", "checkpoint"): figures = try grdbCheckpoint(rows, directory)
        default: throw SanityFailure(description: "unknown scale phase \(store) \(phase)")
        }
        print(figures.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        exit(0)
    }

    // MARK: - Strata

    private static func strataConfiguration(_ directory: String) -> Realm.Configuration {
        ScaleRestart.configuration(directory)
    }

    private static func strataBuild(_ rows: Int64, _ directory: String) throws -> [(String, Double)] {
        let configuration = strataConfiguration(directory)
        let start = now()
        let realm = try Realm(configuration: configuration)
        for first in stride(from: 1, through: rows, by: Int(batch)) {
            try realm.write {
                for id in first...min(rows, first + batch - 1) { realm.add(ScalePerson(ScaleRow(id: id))) }
            }
        }
        try StoreProbe(path: configuration.fileURL!.path, durability: .normal).checkpoint()
        return [("build_s", seconds(since: start)), ("file_bytes", Double(directoryBytes(directory)))]
    }

    private static func strataOpen(_ rows: Int64, _ directory: String) throws -> [(String, Double)] {
        try evictFromPageCache(directory: directory)
        var figures: [(String, Double)] = []
        var start = now()
        let realm = try Realm(configuration: strataConfiguration(directory))
        try expect(realm.object(ofType: ScalePerson.self, forPrimaryKey: Int64(1))?.name, "person-1", "scale lookup of id 1")
        figures.append(("open_ms", Double(now() - start) / 1e6))
        figures += memory("open")

        let ids = SplitMix64.ids(count: lookups, rows: rows)
        var found = 0
        start = now()
        for id in ids { found += realm.object(ofType: ScalePerson.self, forPrimaryKey: id)?.name.utf8.count ?? 0 }
        figures.append(("lookup_ns", Double(now() - start) / Double(lookups)))
        try expect(found > 0, true, "scale lookups found rows")
        figures += memory("lookups")

        for pass in ["cold", "hot"] {
            start = now()
            var bytes = 0
            for person in realm.objects(ScalePerson.self) { bytes += person.bio.utf8.count }
            figures.append(("scan_\(pass)_s", seconds(since: start)))
            try expect(bytes, Int(rows) * ScaleRow.bioBytes, "scale scan bytes")
        }
        figures += memory("scans")
        return figures
    }

    /// The updates may start checkpoints of their own in the background (when the log passes its
    /// threshold), so the log's bytes are the store's count of what the commits appended, and
    /// the checkpoint's bytes all the process wrote besides, through the explicit checkpoint at
    /// the end.
    private static func strataCheckpoint(_ rows: Int64, _ directory: String) throws -> [(String, Double)] {
        let configuration = strataConfiguration(directory)
        let realm = try Realm(configuration: configuration)
        let probe = try StoreProbe(path: configuration.fileURL!.path, durability: .normal)
        var generator = SplitMix64(seed: 7)
        let (before, logBefore, checkpointsBefore) = (ProcessIO.current, probe.logBytesAppended, probe.checkpoints)
        for _ in 0..<updates {
            let id = 1 + Int64(generator.next() % UInt64(rows))
            try realm.write { realm.object(ofType: ScalePerson.self, forPrimaryKey: id)!.age += 1 }
        }
        let logBytes = Double(probe.logBytesAppended - logBefore)
        let checkpointsDuringUpdates = Double(probe.checkpoints - checkpointsBefore)
        let beforeCheckpoint = memory("updates")
        let start = now()
        try probe.checkpoint()
        let checkpointSeconds = seconds(since: start)
        let written = ProcessIO.current - before
        return [("log_write_bytes", logBytes), ("checkpoint_write_bytes", Double(written.writeBytes) - logBytes),
                ("checkpoints_during_updates", checkpointsDuringUpdates), ("checkpoint_s", checkpointSeconds)]
            + beforeCheckpoint + memory("checkpoint")
    }

    // MARK: - GRDB

    private static func grdbPool(_ directory: String) throws -> DatabasePool {
        try DatabasePool(path: directory + "/scale.sqlite", configuration: Configuration())
    }

    private static func grdbBuild(_ rows: Int64, _ directory: String) throws -> [(String, Double)] {
        let start = now()
        let pool = try grdbPool(directory)
        try pool.write(ScaleRecord.createTable)
        for first in stride(from: 1, through: rows, by: Int(batch)) {
            try pool.write { db in
                for id in first...min(rows, first + batch - 1) { try ScaleRecord(ScaleRow(id: id)).insert(db) }
            }
        }
        try pool.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        try pool.close()
        return [("build_s", seconds(since: start)), ("file_bytes", Double(directoryBytes(directory)))]
    }

    private static func grdbOpen(_ rows: Int64, _ directory: String) throws -> [(String, Double)] {
        try evictFromPageCache(directory: directory)
        var figures: [(String, Double)] = []
        var start = now()
        let pool = try grdbPool(directory)
        let first = try pool.read { try ScaleRecord.fetchOne($0, key: 1) }
        try expect(first?.name, "person-1", "scale lookup of id 1")
        figures.append(("open_ms", Double(now() - start) / 1e6))
        figures += memory("open")

        let ids = SplitMix64.ids(count: lookups, rows: rows)
        start = now()
        let found = try pool.read { db in
            try ids.reduce(0) { total, id in total + (try ScaleRecord.fetchOne(db, key: id)?.name.utf8.count ?? 0) }
        }
        figures.append(("lookup_ns", Double(now() - start) / Double(lookups)))
        try expect(found > 0, true, "scale lookups found rows")
        figures += memory("lookups")

        for pass in ["cold", "hot"] {
            start = now()
            let bytes = try pool.read { db in
                var bytes = 0
                let cursor = try ScaleRecord.fetchCursor(db)
                while let record = try cursor.next() { bytes += record.bio.utf8.count }
                return bytes
            }
            figures.append(("scan_\(pass)_s", seconds(since: start)))
            try expect(bytes, Int(rows) * ScaleRow.bioBytes, "scale scan bytes")
        }
        figures += memory("scans")
        try pool.close()
        return figures
    }

    private static func grdbCheckpoint(_ rows: Int64, _ directory: String) throws -> [(String, Double)] {
        let pool = try grdbPool(directory)
        // The WAL grows without automatic checkpoints, so the explicit one covers all updates.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        var generator = SplitMix64(seed: 7)
        let before = ProcessIO.current
        for _ in 0..<updates {
            let id = 1 + Int64(generator.next() % UInt64(rows))
            try pool.write { try $0.execute(sql: "UPDATE scalePerson SET age = age + 1 WHERE id = ?", arguments: [id]) }
        }
        let afterUpdates = ProcessIO.current
        let beforeCheckpoint = memory("updates")
        let start = now()
        try pool.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        let checkpointSeconds = seconds(since: start)
        let figures = ioFigures(before: before, afterUpdates: afterUpdates, afterCheckpoint: ProcessIO.current)
        try pool.close()
        return figures + [("checkpoint_s", checkpointSeconds)] + beforeCheckpoint + memory("checkpoint")
    }

    // MARK: - Figures

    /// `VmRSS`, `RssAnon` and the peak `VmHWM` now, in kB, named after `moment`.
    static func memory(_ moment: String) -> [(String, Double)] {
        ["VmRSS", "RssAnon", "VmHWM"].map { ("\($0.lowercased())_\(moment)_kb", Double(Machine.statusKilobytes($0))) }
    }

    /// The bytes the updates wrote (the log) and the checkpoint wrote after them.
    private static func ioFigures(before: ProcessIO, afterUpdates: ProcessIO, afterCheckpoint: ProcessIO) -> [(String, Double)] {
        let log = afterUpdates - before, checkpoint = afterCheckpoint - afterUpdates
        return [("log_write_bytes", Double(log.writeBytes)), ("checkpoint_write_bytes", Double(checkpoint.writeBytes)),
                ("log_wchar", Double(log.writeCalls)), ("checkpoint_wchar", Double(checkpoint.writeCalls))]
    }
}
