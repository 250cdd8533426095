import Foundation
import StrataTestSupport
import Testing

/// The real `strata` executable, run as an operator runs it: arguments, standard input, and
/// its exit status and output.
enum ToolProcess {
    struct Result {
        let status: Int32
        let output: String
        let error: String

        /// Standard output's lines.
        var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
    }

    /// Runs `strata` (or another of the package's programs) with `arguments`, `input` on
    /// standard input, and `COLUMNS` set to `columns`; its output goes through files (no pipe
    /// can fill up).
    static func run(_ arguments: [String], input: String? = nil, columns: Int = 80,
                    program: String = "strata") throws -> Result {
        let process = Process()
        process.executableURL = try locate(program)
        process.arguments = arguments
        var environment = childProcessEnvironment()
        environment["COLUMNS"] = String(columns)
        process.environment = environment
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tool-\(UUID().uuidString)").path
        defer { for suffix in [".out", ".err", ".in"] { try? FileManager.default.removeItem(atPath: base + suffix) } }
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".in", contents: Data((input ?? "").utf8))
        process.standardOutput = FileHandle(forWritingAtPath: base + ".out")
        process.standardError = FileHandle(forWritingAtPath: base + ".err")
        process.standardInput = FileHandle(forReadingAtPath: base + ".in")
        try process.run()
        let patience = Duration.seconds(120)
        if process.waitForExit(timeout: patience) == nil { kill(process.processIdentifier, SIGKILL) }
        let status = process.waitForExit(timeout: patience) ?? -SIGKILL
        return Result(status: status, output: (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "",
                      error: (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")
    }

    /// The executable `program` beside the test bundle.
    static func locate(_ program: String) throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(program)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: program])
    }
}
