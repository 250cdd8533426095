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
        let process = Process()
        process.executableURL = worker
        process.arguments = [path, durability, String(checkpointThreshold)]
        process.environment = childProcessEnvironment()
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let reader = output.fileHandleForReading

        // Wait for "start" so the kill lands while commits are in flight, not during launch.
        var buffer = Data()
        while !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        usleep(killAfterMicroseconds)
        kill(process.processIdentifier, SIGKILL)
        buffer.append(reader.readDataToEndOfFile())
        #expect(process.finish(within: .seconds(60)) == -SIGKILL, "the worker did not end with the SIGKILL sent to it")

        let text = String(decoding: buffer, as: UTF8.self)
        if !text.hasPrefix("start") {
            Issue.record("worker did not start: \(text)")
        }
        return text.split(separator: "\n").compactMap { line in
            line.hasPrefix("ack ") ? Int64(line.dropFirst(4)) : nil
        }
    }
}
