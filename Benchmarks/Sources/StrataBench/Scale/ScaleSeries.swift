import Foundation

/// The scale series (issue 14): for each row count, each store is built, closed, and measured by
/// fresh child processes (``ScaleChild``): open time and memory after a cold open (its files
/// evicted from the page cache), 10,000 random key lookups, a first (cold) and second (hot) full
/// scan, and the bytes checkpoints write for 20,000 single-row updates (`STRATA_SCALE_UPDATES`
/// sets the number), from `/proc/self/io`.
///
/// Row counts: 1M and 5M; `--quick` 100k and 1M; `--scale-full` adds 20M; `--scale-rows 1000000,…`
/// chooses them. `--scale-plot <path>` writes the plot of open time and memory against rows to
/// `<path>.svg`, and to `<path>.png` when `rsvg-convert` (Debian's `librsvg2-bin`) is installed.
enum ScaleSeries {
    static var rowCounts: [Int64] {
        if let list = Options.value(after: "--scale-rows") { return list.split(separator: ",").compactMap { Int64($0) } }
        let counts: [Int64] = Options.quick ? [100_000, 1_000_000] : [1_000_000, 5_000_000]
        return counts + (CommandLine.arguments.contains("--scale-full") ? [20_000_000] : [])
    }

    /// One store's figures at one row count.
    struct Point {
        let rows: Int64
        let store: String
        var figures: [String: Double]
    }

    static func run(_ table: Table) throws {
        var points: [Point] = []
        for rows in rowCounts {
            var byStore: [String: Figures] = [:]
            for store in ["grdb", "strata"] {
                let scratch = Scratch()
                defer { scratch.remove() }
                var figures: [String: Double] = [:]
                for phase in ["build", "open", "checkpoint"] {
                    figures.merge(try child(store, phase, rows, scratch.path)) { $1 }
                }
                if store == "strata" { figures.merge(try restartFigures(rows, scratch.path)) { $1 } }
                let point = Point(rows: rows, store: store, figures: figures)
                points.append(point)
                byStore[store] = Self.figures(point)
                JSONLine.print(workload: "scale-\(rows)", store: store, pairing: .normal, reps: "1 (fresh processes)",
                               byStore[store]!)
            }
            let compared = Compared(pairing: .normal, grdb: byStore["grdb"]!, strata: byStore["strata"]!)
            let label = "scale \(Table.format(Double(rows))) rows:"
            let updatesLabel = Table.format(Double(ScaleChild.updates))
            table.add("\(label) open after a clean close, cold", compared, "open_ms", unit: "ms", better: .lower)
            table.add("\(label) RssAnon after open", compared, "anon_open_mb", unit: "MB", better: .lower)
            table.add("\(label) RSS after open + 10k lookups", compared, "rss_lookups_mb", unit: "MB", better: .lower)
            table.add("\(label) RssAnon after open + 10k lookups", compared, "anon_lookups_mb", unit: "MB", better: .lower)
            table.add("\(label) random key lookup", compared, "lookup_ns", unit: "ns", better: .lower)
            table.add("\(label) first full scan (cold)", compared, "scan_cold_s", unit: "s", better: .lower)
            table.add("\(label) second full scan (hot)", compared, "scan_hot_s", unit: "s", better: .lower)
            table.add("\(label) bytes the checkpoints of \(updatesLabel) updates write", compared, "checkpoint_mb", unit: "MB",
                      better: .lower)
            table.add("\(label) checkpoint bytes / log bytes it covers", compared, "checkpoint_to_log", unit: "×",
                      better: .lower)
            table.add("\(label) open after the writer released its last Realm, cold", compared, "released_open_ms",
                      unit: "ms", better: .lower)
            table.add("\(label) open after a kill -9 with the log just under the threshold, cold", compared,
                      "killed_open_ms", unit: "ms", better: .lower)
            table.add("\(label) open after that open, cold", compared, "after_killed_open_ms", unit: "ms",
                      better: .lower)
            table.add("\(label) RssAnon after the replay (16 MB cache)", compared, "killed_anon_open_mb", unit: "MB",
                      better: .lower)
            table.add("\(label) RssAnon once the replay is checkpointed (16 MB cache)", compared,
                      "killed_anon_checkpointed_mb", unit: "MB", better: .lower)
            table.add("\(label) peak RSS after the updates and checkpoint", compared, "peak_rss_checkpoint_mb", unit: "MB",
                      better: .lower)
            table.add("\(label) RSS after the \(updatesLabel) updates, before the last checkpoint", compared,
                      "rss_before_checkpoint_mb", unit: "MB", better: .lower)
        }
        if let path = Options.value(after: "--scale-plot") {
            try ScalePlot(points: points).svg.write(toFile: path + ".svg", atomically: true, encoding: .utf8)
            print("# scale plot written to \(path).svg\(try convertToPNG(path) ? " and \(path).png" : "")")
        }
    }

    /// The figures of the JSON line and the table.
    private static func figures(_ point: Point) -> Figures {
        let f = point.figures
        func mb(_ key: String) -> Figure { f[key].map { .number($0 / 1024) } ?? .missing }
        let log = f["log_write_bytes"] ?? 0, checkpoint = f["checkpoint_write_bytes"] ?? 0
        return Figures(sync: point.store == "strata" ? "durability=.normal" : "journal_mode=wal synchronous=NORMAL", [
            "rows": .integer(Int(point.rows)), "build_s": f["build_s"].map(Figure.number) ?? .missing,
            "file_mb": f["file_bytes"].map { .number($0 / 1_048_576) } ?? .missing,
            "open_ms": f["open_ms"].map(Figure.number) ?? .missing,
            "rss_open_mb": mb("vmrss_open_kb"), "anon_open_mb": mb("rssanon_open_kb"),
            "rss_lookups_mb": mb("vmrss_lookups_kb"), "anon_lookups_mb": mb("rssanon_lookups_kb"),
            "peak_rss_mb": mb("vmhwm_scans_kb"),
            "lookup_ns": f["lookup_ns"].map(Figure.number) ?? .missing,
            "scan_cold_s": f["scan_cold_s"].map(Figure.number) ?? .missing,
            "scan_hot_s": f["scan_hot_s"].map(Figure.number) ?? .missing,
            "log_mb": .number(log / 1_048_576), "checkpoint_mb": .number(checkpoint / 1_048_576),
            "checkpoint_to_log": log > 0 ? .number(checkpoint / log) : .missing,
            "checkpoint_s": f["checkpoint_s"].map(Figure.number) ?? .missing,
            "checkpoints_during_updates": f["checkpoints_during_updates"].map(Figure.number) ?? .missing,
            // The checkpoint's memory: RSS after the updates, and the process's peak after it.
            "rss_before_checkpoint_mb": mb("vmrss_updates_kb"), "peak_rss_checkpoint_mb": mb("vmhwm_checkpoint_kb"),
            // The restarts (Strata only, see `ScaleRestart`).
            "released_log_mb": f["released_log_bytes"].map { .number($0 / 1_048_576) } ?? .missing,
            "release_s": f["released_release_s"].map(Figure.number) ?? .missing,
            "released_open_ms": f["released_open_ms"].map(Figure.number) ?? .missing,
            "released_replayed_mb": f["released_replayed_bytes"].map { .number($0 / 1_048_576) } ?? .missing,
            "killed_log_mb": f["killed_log_bytes"].map { .number($0 / 1_048_576) } ?? .missing,
            "killed_open_ms": f["killed_open_ms"].map(Figure.number) ?? .missing,
            "killed_replayed_mb": f["killed_replayed_bytes"].map { .number($0 / 1_048_576) } ?? .missing,
            "killed_anon_open_mb": mb("killed_rssanon_open_kb"),
            "killed_anon_checkpointed_mb": mb("killed_rssanon_checkpointed_kb"),
            "replay_checkpoint_s": f["killed_replay_checkpoint_s"].map(Figure.number) ?? .missing,
            "after_killed_open_ms": f["after_killed_open_ms"].map(Figure.number) ?? .missing,
            "after_killed_replayed_mb": f["after_killed_replayed_bytes"].map { .number($0 / 1_048_576) } ?? .missing,
            "after_killed_anon_open_mb": mb("after_killed_rssanon_open_kb"),
        ], note: "fresh child process per phase; files evicted from the page cache before the open")
    }

    /// The restart phases (see ``ScaleRestart``): a writer that releases its last Realm and the
    /// open after it; a writer killed with its log just under the threshold, the open after it
    /// and the open after that one. Keys are prefixed `released_`, `killed_` and `after_killed_`.
    private static func restartFigures(_ rows: Int64, _ directory: String) throws -> [String: Double] {
        var figures: [String: Double] = [:]
        func add(_ prefix: String, _ phase: String, expectingKill: Bool = false) throws {
            let measured = try child("strata", phase, rows, directory, expectingKill: expectingKill)
            for (key, value) in measured { figures[prefix + key] = value }
        }
        try add("released_", "release")
        try add("released_", "restart-open")
        try add("killed_", "kill", expectingKill: true)
        try add("killed_", "restart-open")
        try add("after_killed_", "restart-open")
        return figures
    }

    /// Renders `<path>.svg` to `<path>.png` with `rsvg-convert`; false when it is not installed.
    private static func convertToPNG(_ path: String) throws -> Bool {
        guard let converter = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"]
            .first(where: FileManager.default.isExecutableFile) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: converter)
        process.arguments = ["-f", "png", "-o", path + ".png", path + ".svg"]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Runs one phase in a child process and parses its `key=value` line.
    private static func child(_ store: String, _ phase: String, _ rows: Int64, _ directory: String,
                              expectingKill: Bool = false) throws -> [String: Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = [ScaleChild.flag, store, phase, String(rows), directory]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let ended = expectingKill
            ? process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
            : process.terminationReason == .exit && process.terminationStatus == 0
        guard ended else {
            throw SanityFailure(description: "scale child \(store) \(phase) \(rows) failed (status "
                                + "\(process.terminationStatus)): \(text)")
        }
        var figures: [String: Double] = [:]
        for pair in text.split(whereSeparator: \.isWhitespace) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { figures[String(parts[0])] = value }
        }
        return figures
    }
}
