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
        ], note: "fresh child process per phase; files evicted from the page cache before the open")
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
    private static func child(_ store: String, _ phase: String, _ rows: Int64, _ directory: String) throws
        -> [String: Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = [ScaleChild.flag, store, phase, String(rows), directory]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
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
