import ArgumentParser
import Foundation
import StrataTerminal
import Strata

/// `strata`: a tool for Strata store files, as `sqlite3` is for SQLite's. It needs no model
/// classes: the schema comes from the file. Every command works on a store no other process
/// holds (another process's hold is reported with its pid).
@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Look into, query, export, import, check, compact and copy Strata store files.",
        version: Strata.version,
        subcommands: [InfoCommand.self, QueryCommand.self, ExportCommand.self, ImportCommand.self,
                      VerifyCommand.self, CompactCommand.self, CopyCommand.self])

    /// Runs a subcommand; any failure is one line on standard error (`strata: error: …`) and a
    /// non-zero exit: 64 for a misuse of the command line, 2 for a store that does not check out,
    /// 1 otherwise.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as ToolError {
            Terminal.printError("strata: error: " + error.description.split(whereSeparator: \.isNewline).joined(separator: " "))
            Foundation.exit(error.status)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                Terminal.print(fullMessage(for: error))  // --help
                Foundation.exit(0)
            }
            let message = self.message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
            Terminal.printError("strata: error: " + message)
            Foundation.exit(code == .validationFailure ? 64 : 1)
        }
    }
}

/// How a command prints objects.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, ndjson, csv

    /// A table on a terminal, NDJSON otherwise.
    static var automatic: OutputFormat { Terminal.isOutputTerminal ? .table : .ndjson }
}
