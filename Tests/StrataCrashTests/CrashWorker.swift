import Foundation
import Testing

/// Runs the `strata-crash-worker` executable and kills it.
enum CrashWorker {
    /// How many of the newest entries the worker keeps.
    static let window: Int64 = 100

    /// The payload the worker writes for entry `n` (kept in step with Tests/CrashWorker/main.swift).
    static func payload(_ n: Int64) -> String {
        String(repeating: Character(UnicodeScalar(UInt8(97 + n % 26))), count: Int(n * 7919 % 1500) + 1)
    }

    /// The worker binary, built beside the test bundle.
    static func locate() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("strata-crash-worker")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "strata-crash-worker"])
    }

    /// Starts the worker, lets it commit for `killAfterMicroseconds` after it reports ready,
    /// SIGKILLs it, and returns every commit it acknowledged.
    static func run(
        _ worker: URL, path: String, durability: String, checkpointThreshold: Int, killAfterMicroseconds: UInt32
    ) throws -> [Int64] {
        let running = try launch(worker, arguments: [path, durability, String(checkpointThreshold)])
        // Wait for "start" so the kill lands while commits are in flight, not during launch.
        var buffer = readLines(from: running.output, until: "start")
        usleep(killAfterMicroseconds)
        return killAndCollect(running, output: &buffer)
    }

    /// Starts the worker in its `stall-in-checkpoint` mode (full durability), waits until its
    /// first checkpoint after the open stops in the middle of writing its pages, SIGKILLs it
    /// there, and returns every commit it acknowledged.
    static func runUntilCheckpointStalls(_ worker: URL, path: String, checkpointThreshold: Int) throws -> [Int64] {
        let running = try launch(worker, arguments: [path, "full", String(checkpointThreshold), "stall-in-checkpoint"])
        var buffer = readLines(from: running.output, until: "checkpointing")
        if !String(decoding: buffer, as: UTF8.self).contains("checkpointing") {
            Issue.record("the worker ended before its checkpoint stalled")
        }
        return killAndCollect(running, output: &buffer)
    }

    private static func launch(_ worker: URL, arguments: [String]) throws -> (process: Process, output: FileHandle) {
        let process = Process()
        process.executableURL = worker
        process.arguments = arguments
        process.environment = childProcessEnvironment()
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output.fileHandleForReading)
    }

    /// Reads until a line starts with `marker` (or the output ends): everything read.
    private static func readLines(from reader: FileHandle, until marker: String) -> Data {
        var buffer = Data()
        while !String(decoding: buffer, as: UTF8.self).split(separator: "\n").contains(where: { $0.hasPrefix(marker) }) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        return buffer
    }

    private static func killAndCollect(_ running: (process: Process, output: FileHandle), output buffer: inout Data)
        -> [Int64] {
        kill(running.process.processIdentifier, SIGKILL)
        buffer.append(running.output.readDataToEndOfFile())
        #expect(running.process.finish(within: .seconds(60)) == -SIGKILL,
                "the worker did not end with the SIGKILL sent to it")

        let text = String(decoding: buffer, as: UTF8.self)
        if !text.hasPrefix("start") {
            Issue.record("worker did not start: \(text)")
        }
        return text.split(separator: "\n").compactMap { line in
            line.hasPrefix("ack ") ? Int64(line.dropFirst(4)) : nil
        }
    }
}
