import Foundation
import StrataEventd
import StrataTestSupport
import Testing

/// The real `strata-eventd` executable, started on loopback for end-to-end tests.
final class DaemonProcess {
    let process = Process()
    let port: Int
    let dataPath: String

    /// The daemon's environment: this process's, made fit for a child process
    /// (``childProcessEnvironment(_:)``: under AddressSanitizer, a trap is reported by
    /// AddressSanitizer, not by Swift's backtracer, which hangs there), with AddressSanitizer's
    /// quarantine of freed memory (256 MB by default) made small, so that an AddressSanitizer
    /// build's resident size measures what the daemon holds, as the memory-bound tests expect,
    /// rather than memory it freed (the option is ignored by a build without the sanitizer).
    static var environment: [String: String] {
        var environment = childProcessEnvironment()
        let options = environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        environment["ASAN_OPTIONS"] = options + "quarantine_size_mb=4"
        return environment
    }

    /// Starts the daemon on a free port with `config` (YAML) and `extraArguments`, and waits
    /// until it listens. With `descriptorLimit`, the daemon runs with that `RLIMIT_NOFILE`, soft
    /// and hard (so it cannot raise it): a shell sets it, then becomes the daemon (same process).
    init(dataPath: String, config: String? = nil, socketPath: String? = nil, extraArguments: [String] = [],
         logLevel: String = "warning", descriptorLimit: Int? = nil) throws {
        self.dataPath = dataPath
        let executable = try Self.locate()
        process.executableURL = executable
        var arguments = ["--port", "0", "--data", dataPath, "--log-level", logLevel]
        if let config {
            let configPath = dataPath + ".yaml"
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            arguments += ["--config", configPath]
        }
        if let socketPath { arguments += ["--socket", socketPath] }
        process.arguments = arguments + extraArguments
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"ulimit -n \#(descriptorLimit) && exec "$0" "$@""#, executable.path]
                + arguments + extraArguments
        }
        process.environment = Self.environment
        let output = Pipe()
        process.standardOutput = output
        // The daemon's log, for diagnosing a failure: <data>.log.
        _ = FileManager.default.createFile(atPath: dataPath + ".log", contents: nil)
        process.standardError = FileHandle(forWritingAtPath: dataPath + ".log")
        try process.run()
        // The first line is {"listening":<port>}.
        var buffer = Data()
        let reader = output.fileHandleForReading
        while !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { throw CocoaError(.fileReadUnknown) }
            buffer.append(chunk)
        }
        let line = String(decoding: buffer.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int],
              let port = object["listening"] else { throw CocoaError(.fileReadCorruptFile) }
        self.port = port
    }

    /// A client whose reads give up after a minute of silence, so a stuck daemon fails the test
    /// instead of hanging the run.
    func client() throws -> LineClient { try LineClient(port: port, timeout: Self.patience) }

    /// How long a test waits for the daemon before it counts as stuck.
    static let patience: Duration = .seconds(60)

    /// SIGTERM, then waits for the drain; returns the exit status (minus the signal number when a
    /// signal ended the daemon). A daemon still running after ``patience`` is killed and reported
    /// as a failure (-1); a daemon that had already died or exits with a failure is reported with
    /// its log (a crash's backtrace is there).
    @discardableResult
    func terminate() -> Int32 {
        if let status = process.exitStatus {
            if status != 0 { recordLog("strata-eventd had exited with status \(status)") }
            return status
        }
        process.terminate()
        guard let status = process.waitForExit(timeout: Self.patience) else {
            kill()
            recordLog("strata-eventd did not exit within \(Self.patience) of SIGTERM")
            return -1
        }
        if status != 0 { recordLog("strata-eventd exited with status \(status)") }
        return status
    }

    private func recordLog(_ failure: String) {
        Issue.record("\(failure); the end of its log:\n\(log.suffix(4_000))")
    }

    /// Sends `signal` (e.g. SIGHUP) to the daemon.
    func send(signal: Int32) { Foundation.kill(process.processIdentifier, signal) }

    /// The daemon's log so far (its standard error).
    var log: String { (try? String(contentsOfFile: dataPath + ".log", encoding: .utf8)) ?? "" }

    /// The sequence numbers of the store's log segments on disk, in order: a checkpoint rotates
    /// the log to a higher one and removes those it covers.
    var logSegmentSequences: [UInt64] {
        let directory = (dataPath as NSString).deletingLastPathComponent
        let prefix = (dataPath as NSString).lastPathComponent + ".log."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            guard name.hasPrefix(prefix), name.count == prefix.count + 16 else { return nil }
            return UInt64(name.dropFirst(prefix.count), radix: 16)
        }.sorted()
    }

    /// Whether the daemon is still running.
    var isRunning: Bool { process.exitStatus == nil }

    /// Runs the executable with `arguments` until it exits and returns its exit status (minus
    /// the signal number when a signal ended it; -9 when it was still running after ``patience``
    /// and was killed) and what it wrote to standard error.
    static func run(arguments: [String]) throws -> (status: Int32, standardError: String) {
        let result = try FinishedProcess.run(try locate(), arguments, timeout: patience)
        return (result.status, result.error)
    }

    /// Runs `strata-eventd ctl` with `arguments` (and `input`): its status and output.
    static func control(_ arguments: [String], input: String? = nil) throws -> FinishedProcess {
        try FinishedProcess.run(try locate(), ["ctl"] + arguments, input: input, timeout: patience)
    }

    /// The daemon's resident set size (VmRSS in /proc/<pid>/status), in bytes.
    var residentBytes: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1_024
    }

    /// The `stats` reply, parsed.
    func stats() throws -> [String: Any] {
        let client = try client()
        client.send(line: #"{"stats":true}"#)
        let line = try #require(client.readLine())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["stats"] as? [String: Any])
    }

    /// A counter of the `stats` reply's `limits` object.
    func limitCounter(_ name: String) throws -> Int {
        try #require(try stats()["limits"] as? [String: Any])[name] as? Int ?? -1
    }

    /// Runs the daemon with `arguments` expecting it to refuse to start: its exit status and
    /// what it printed on standard error.
    static func refusedStart(_ arguments: [String]) throws -> (status: Int32, message: String) {
        let result = try run(arguments: arguments)
        return (result.status, result.standardError)
    }

    /// SIGKILL, then waits (at most ``patience``) for the daemon to end.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        if process.waitForExit(timeout: Self.patience) == nil {
            Issue.record("strata-eventd still runs \(Self.patience) after SIGKILL")
        }
    }

    static func locate() throws -> URL {
        try FinishedProcess.locate("strata-eventd")
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("eventd-\(UUID().uuidString)").path
    }
}

/// An event line.
func eventLine(_ id: String, type: String = "login", amount: Int = 1) -> String {
    #"{"id":"\#(id)","type":"\#(type)","source":"test","time":1700000000,"payload":{"amount":\#(amount)}}"#
}
