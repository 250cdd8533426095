import ArgumentParser
import Foundation
import StrataTerminal
@_spi(StrataTool) import Strata

/// `strata import FILE --class C`: objects from JSON or NDJSON, in one write transaction: all of
/// them, or (when one is refused) none, with every refused object's line reported.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Add objects of a class from JSON or NDJSON, all or none.",
        discussion: """
        Values are read as `strata export` writes them: dates as ISO 8601 text (or seconds since \
        1970), data as Base64, a link as the target's primary key, an embedded object as a JSON \
        object. A property left out gets its type's default. Nothing is written unless every \
        object is accepted; each refused one is reported with its line (ndjson) or its position \
        in the array (json).
        """)

    @Argument(help: "The store file.") var file: String
    @Option(name: .customLong("class"), help: "The class the objects are.") var className: String
    @Option(help: "json (one array of objects) or ndjson (one object per line).") var format: OutputFormat
    @Option(help: "Read from this file instead of standard input.") var input: String?
    @Option(help: "Update objects whose primary key exists: modified (the values that differ) or all.")
    var update: UpdateMode?

    enum UpdateMode: String, ExpressibleByArgument {
        case modified, all
    }

    func validate() throws {
        if format != .json && format != .ndjson { throw ValidationError("--format must be json or ndjson") }
    }

    func run() throws {
        guard let data = Terminal.readInput(path: input) else { throw ToolError("cannot read '\(input ?? "")'") }
        let (objects, unit) = try parse(data)
        let inspector = try StoreOpening.inspector(file, readOnly: false)
        let policy: Realm.UpdatePolicy = switch update {
        case .modified: .modified
        case .all: .all
        case nil: .error
        }
        do {
            let summary = try Progress("importing").run {
                try inspector.importObjects(objects, into: className, update: policy)
            }
            Terminal.printError("imported \(Progress.grouped(summary.inserted)) new and updated "
                                + "\(Progress.grouped(summary.updated)) \(className) objects")
        } catch let failure as StoreInspector.ImportFailure {
            for problem in failure.problems { Terminal.printError("\(unit) \(problem.line): \(problem.message)") }
            throw ToolError("nothing imported: \(failure.problems.count) object\(failure.problems.count == 1 ? "" : "s") "
                            + "refused\(failure.problems.count == 100 ? " (the first 100 shown)" : "")")
        } catch let error as Realm.Error {
            throw ToolError(error.message)
        }
    }

    /// The objects of the input, each with its line (ndjson) or position (json); "$class" keys
    /// (as `strata export` writes them without --class) must name the class and are dropped.
    private func parse(_ data: Data) throws -> ([StoreInspector.ImportedObject], String) {
        switch format {
        case .json:
            let parsed: Any
            do {
                parsed = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            } catch {
                throw ToolError("the input is not JSON: \(error.localizedDescription)")
            }
            guard let array = parsed as? [Any] else { throw ToolError("the input is not a JSON array of objects") }
            return (try array.enumerated().map { try object($1, at: $0 + 1, unit: "object") }, "object")
        default:
            var objects: [StoreInspector.ImportedObject] = []
            for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
                let text = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
                guard !text.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { continue }
                guard let parsed = try? JSONSerialization.jsonObject(with: Data(text), options: [.fragmentsAllowed]) else {
                    throw ToolError("line \(index + 1) is not JSON; nothing imported")
                }
                objects.append(try object(parsed, at: index + 1, unit: "line"))
            }
            return (objects, "line")
        }
    }

    private func object(_ value: Any, at position: Int, unit: String) throws -> StoreInspector.ImportedObject {
        guard var fields = value as? [String: Any] else {
            return StoreInspector.ImportedObject(line: position, value: value)  // refused by the import, with its line
        }
        if let named = fields.removeValue(forKey: "$class"), (named as? String) != className {
            throw ToolError("\(unit) \(position) is a '\(named)', not a '\(className)'; nothing imported")
        }
        return StoreInspector.ImportedObject(line: position, value: fields)
    }
}
