import ArgumentParser
import Foundation
@_spi(StrataTool) import Strata

/// `strata export FILE`: every object of one class, or of every class, as JSON, NDJSON or CSV
/// that `strata import` reads back.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the objects of a class, or of every class, as JSON, NDJSON or CSV.",
        discussion: """
        With --class, one JSON array (json), one object per line (ndjson) or a header and one \
        record per object (csv). Without it, every class that is not embedded (embedded objects \
        are written inside their owners): json gives {"Class": [objects…], …}, ndjson one object \
        per line with its class in "$class"; csv needs --class.
        """)

    @Argument(help: "The store file.") var file: String
    @Option(name: .customLong("class"), help: "The class to export (default: every class).") var className: String?
    @Option(help: "json, ndjson or csv.") var format: OutputFormat
    @Option(help: "Write here instead of to standard output (the file must not exist).") var output: String?

    func validate() throws {
        if format == .table { throw ValidationError("--format must be json, ndjson or csv") }
        if format == .csv, className == nil { throw ValidationError("--format csv needs --class") }
    }

    func run() throws {
        let inspector = try StoreOpening.inspector(file, readOnly: true)
        let names = className.map { [$0] } ?? inspector.classes.filter { !$0.schema.isEmbedded }.map(\.schema.className)
        let batches = try names.map { name in (name, try QueryCommand.query(inspector, name, nil)) }
        let sink = try OutputSink(path: output)
        defer { sink.close() }
        let progress = Progress("exporting", total: batches.reduce(0) { $0 + $1.1.count })
        defer { progress.finish() }
        var done = 0
        for (index, (name, objects)) in batches.enumerated() {
            let columns = objects.propertyNames
            switch format {
            case .json:
                if className == nil { sink.write((index == 0 ? "{" : ",\n") + JSONLines.fragment(name) + ":") }
                sink.write("[")
                for (position, object) in objects.enumerated() {
                    sink.write((position == 0 ? "" : ",\n") + JSONLines.text(object, keyOrder: columns))
                    done += 1
                    progress.update(done)
                }
                sink.write("]")
                if className == nil, index == batches.count - 1 { sink.write("}") }
            case .ndjson:
                for object in objects {
                    var fields = object
                    if className == nil { fields["$class"] = name }
                    sink.write(JSONLines.text(fields, keyOrder: (className == nil ? ["$class"] : []) + columns) + "\n")
                    done += 1
                    progress.update(done)
                }
            case .csv:
                sink.write(CSVWriter.line(columns))
                for object in objects {
                    sink.write(CSVWriter.line(columns.map { JSONLines.cell(object[$0] ?? NSNull()) }))
                    done += 1
                    progress.update(done)
                }
            case .table:
                break
            }
        }
        if format == .json {
            if className == nil, batches.isEmpty { sink.write("{}") }
            sink.write("\n")
        }
    }
}

/// Where a command writes: standard output, or a new file.
final class OutputSink {
    private let handle: FileHandle
    private let ownsHandle: Bool
    private var buffer = Data()

    /// Standard output when `path` is nil, else a file created at `path` (which must not exist).
    init(path: String?) throws {
        guard let path else {
            handle = FileHandle.standardOutput
            ownsHandle = false
            return
        }
        guard !FileManager.default.fileExists(atPath: path) else { throw ToolError("'\(path)' exists; give a new file") }
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let opened = FileHandle(forWritingAtPath: path) else {
            throw ToolError("cannot create '\(path)'")
        }
        handle = opened
        ownsHandle = true
    }

    /// Appends `text` (buffered; written in 64 KiB pieces).
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 65_536 { flush() }
    }

    /// Writes what is buffered and, for a file, closes it.
    func close() {
        flush()
        if ownsHandle { try? handle.close() }
    }

    private func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
