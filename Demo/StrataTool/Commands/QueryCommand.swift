import ArgumentParser
import Foundation
import StrataTerminal
@_spi(StrataTool) import Strata

/// `strata query FILE CLASS [RQL]`: the objects of a class that match a Realm Query Language
/// predicate, as a table on a terminal or as JSON, NDJSON or CSV.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Print the objects of a class that match a query.",
        discussion: """
        Links print as the target's primary key; embedded objects, lists, sets and maps as JSON.
        Examples:
          strata query events.strata Event "severity >= \\$0 AND source BEGINSWITH 'web'" --arg 3 --sort time:desc --limit 20
          strata query events.strata Event --format csv > events.csv
        """)

    @Argument(help: "The store file.") var file: String
    @Argument(help: "The class to query.") var className: String
    @Argument(help: "A Realm Query Language predicate (every object when left out).") var predicate: String?
    @Option(name: .customLong("arg"), help: "A value for $0, $1, … in order: JSON (42, 2.5, true, \"text\", null) or text.")
    var arguments: [String] = []
    @Option(help: "Sort by a property: NAME or NAME:desc (repeatable).") var sort: [String] = []
    @Option(help: "At most this many objects.") var limit: Int?
    @Option(help: "table, json, ndjson or csv (default: table on a terminal, ndjson otherwise).") var format: OutputFormat?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        let inspector = try StoreOpening.inspector(file, readOnly: true)
        let objects = try Self.query(inspector, className, predicate, arguments: arguments, sort: sort, limit: limit)
        ObjectPrinter(format: format ?? .automatic, columns: objects.propertyNames).print(objects)
    }

    /// Runs a query for a command, with its errors as one-line tool errors.
    static func query(_ inspector: StoreInspector, _ className: String, _ predicate: String?, arguments: [String] = [],
                      sort: [String] = [], limit: Int? = nil) throws -> InspectedObjects {
        let sortKeys = sort.map { key -> (keyPath: String, ascending: Bool) in
            if key.hasSuffix(":desc") { return (String(key.dropLast(5)), false) }
            if key.hasSuffix(":asc") { return (String(key.dropLast(4)), true) }
            return (key, true)
        }
        do {
            return try inspector.objects(of: className, filter: predicate, arguments: arguments.map(argument),
                                         sort: sortKeys, limit: limit)
        } catch let error as Realm.Error {
            throw ToolError(error.message)
        }
    }

    /// A command-line value for a query argument: JSON when it parses as JSON, else the text.
    static func argument(_ text: String) -> Any {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? text
    }
}

/// Prints objects in one of the output formats, with their properties in the class's order.
struct ObjectPrinter {
    let format: OutputFormat
    let columns: [String]

    func print(_ objects: some Collection<[String: Any]>) {
        switch format {
        case .table:
            let rows = objects.map { object in columns.map { JSONLines.cell(object[$0] ?? NSNull()) } }
            for line in TableRenderer(columns: columns, width: Terminal.width).lines(rows) { Terminal.print(line) }
            Terminal.print("(\(Progress.grouped(objects.count)) object\(objects.count == 1 ? "" : "s"))")
        case .json:
            Terminal.print("[" + objects.map { JSONLines.text($0, keyOrder: columns) }.joined(separator: ",\n") + "]")
        case .ndjson:
            for object in objects { Terminal.print(JSONLines.text(object, keyOrder: columns)) }
        case .csv:
            Terminal.write(CSVWriter.line(columns))
            for object in objects { Terminal.write(CSVWriter.line(columns.map { JSONLines.cell(object[$0] ?? NSNull()) })) }
        }
    }
}
