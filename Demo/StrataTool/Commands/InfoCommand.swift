import ArgumentParser
import Foundation
import StrataTerminal
@_spi(StrataTool) import Strata

/// `strata info FILE`: the file formats, the schema with each class's object count and
/// backlinks, the files' sizes and the store's statistics.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show a store's schema, object counts, sizes and statistics.")

    @Argument(help: "The store file.") var file: String
    @Option(help: "text or json (default: text on a terminal, json otherwise).") var format: String?

    func run() throws {
        let inspector = try StoreOpening.inspector(file, readOnly: true)
        let classes = inspector.classes
        let statistics = inspector.statistics
        let onDisk = try StoreInspector.onDiskBytes(of: inspector.fileURL)
        let formats = StoreInspector.formatVersions
        switch format ?? (Terminal.isOutputTerminal ? "text" : "json") {
        case "json":
            let report: [String: Any] = [
                "file": inspector.fileURL.path,
                "formats": ["pageFile": Int(formats.pageFile), "commitLog": Int(formats.commitLog)],
                "version": Int(statistics.version),
                "bytes": ["onDisk": Int(onDisk), "pageFile": Int(statistics.fileBytes),
                          "pageFileInUse": Int(statistics.fileBytesInUse), "log": Int(statistics.logBytes)],
                "logSegments": statistics.logSegments,
                "checkpoints": ["count": Int(statistics.checkpoints.count), "failures": Int(statistics.checkpoints.failures),
                                "lastError": statistics.checkpoints.lastError.map { $0.message } as Any? ?? NSNull()],
                "classes": classes.map(Self.json),
            ]
            Terminal.print(JSONLines.fragment(report))
        case "text":
            Terminal.print("\(inspector.fileURL.path)")
            Terminal.print("  formats: page file \(formats.pageFile), commit log \(formats.commitLog); version \(statistics.version)")
            Terminal.print("  size: \(Self.bytes(onDisk)) on disk (page file \(Self.bytes(statistics.fileBytes)), "
                           + "\(Self.bytes(statistics.fileBytesInUse)) in use; log \(Self.bytes(statistics.logBytes)) "
                           + "in \(statistics.logSegments) segment\(statistics.logSegments == 1 ? "" : "s"))")
            Terminal.print("  checkpoints: \(statistics.checkpoints.count) this open, \(statistics.checkpoints.failures) failed"
                           + (statistics.checkpoints.lastError.map { "; last error: \($0.message)" } ?? ""))
            for stored in classes { Self.printClass(stored) }
        default:
            throw ToolError("--format must be text or json", status: 64)
        }
    }

    private static func printClass(_ stored: StoreInspector.StoredClass) {
        let schema = stored.schema
        let kind = schema.isEmbedded ? "embedded class" : "class"
        Terminal.print("")
        Terminal.print("\(kind) \(schema.className): \(Progress.grouped(stored.count)) object\(stored.count == 1 ? "" : "s")")
        let rows = schema.properties.map { property -> [String] in
            var flags: [String] = []
            if property.isPrimary { flags.append("primary key") } else if property.isIndexed { flags.append("indexed") }
            return [property.name, typeName(property), flags.joined(separator: ", ")]
        }
        for line in TableRenderer(columns: ["property", "type", ""], width: Terminal.width).lines(rows) {
            Terminal.print("  " + line)
        }
        if !stored.linkedFrom.isEmpty { Terminal.print("  linked from: " + stored.linkedFrom.joined(separator: ", ")) }
    }

    private static func json(_ stored: StoreInspector.StoredClass) -> [String: Any] {
        [
            "name": stored.schema.className, "embedded": stored.schema.isEmbedded, "count": stored.count,
            "primaryKey": stored.schema.primaryKeyProperty?.name as Any? ?? NSNull(),
            "linkedFrom": stored.linkedFrom,
            "properties": stored.schema.properties.map { property in
                ["name": property.name, "type": typeName(property), "indexed": property.isIndexed,
                 "primaryKey": property.isPrimary] as [String: Any]
            },
        ]
    }

    /// Realm's spelling of a property's type: `int`, `string?`, `array<Dog>`, `set<int>`,
    /// `dictionary<string, double>`, `Dog?` for a link.
    static func typeName(_ property: Property) -> String {
        var element = property.objectClassName ?? "\(property.type)"
        if property.isOptional, property.type != .any { element += "?" }
        if property.isArray { return "array<\(element)>" }
        if property.isSet { return "set<\(element)>" }
        if property.isMap { return "dictionary<string, \(element)>" }
        return element
    }

    /// `1536` as `1.5 KiB`.
    static func bytes(_ count: UInt64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count), unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f ", value) + units[unit]
    }
}
