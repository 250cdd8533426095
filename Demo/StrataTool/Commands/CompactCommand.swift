import ArgumentParser
import Foundation
import StrataTerminal
@_spi(StrataTool) import Strata

/// `strata compact FILE`: the page file rewritten without its free pages, the log folded in.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact", abstract: "Rewrite a store without its free space.")

    @Argument(help: "The store file.") var file: String

    func run() throws {
        try StoreOpening.checkExists(file)
        let sizes: (before: UInt64, after: UInt64)
        do {
            sizes = try Progress("compacting").run { try StoreInspector.compact(fileURL: URL(fileURLWithPath: file)) }
        } catch {
            throw StoreOpening.explained(error, path: file)
        }
        Terminal.print("compacted '\(file)': \(InfoCommand.bytes(sizes.before)) → \(InfoCommand.bytes(sizes.after))")
    }
}

/// `strata copy FILE DEST`: a consistent, compacted copy of the store, as a backup.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy", abstract: "Write a consistent, compacted copy of a store (a backup).")

    @Argument(help: "The store file.") var file: String
    @Argument(help: "The new store file (must not exist).") var destination: String

    func run() throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ToolError("'\(destination)' exists; give a new file")
        }
        let inspector = try StoreOpening.inspector(file, readOnly: true)
        do {
            try Progress("copying").run { try inspector.writeCopy(to: URL(fileURLWithPath: destination)) }
        } catch {
            throw StoreOpening.explained(error, path: file)
        }
        Terminal.print("copied '\(file)' to '\(destination)' (\(InfoCommand.bytes(try StoreInspector.onDiskBytes(of: URL(fileURLWithPath: destination)))))")
    }
}
