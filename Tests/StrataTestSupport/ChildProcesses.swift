import Foundation

/// The environment for a program a test starts (the daemon, a crash worker, a fuzz target's
/// replay): `base` (this process's environment by default), with, under AddressSanitizer, the
/// Swift runtime's crash backtracer turned off and AddressSanitizer reporting traps in its place.
///
/// Under AddressSanitizer the backtracer hangs instead of reporting: it reads the crashed
/// program's memory through a helper thread in that program, AddressSanitizer stops the program
/// at the helper's first read of a redzone, and the backtracer's own process, which inherited the
/// program's descriptors, then waits forever. A test reading the program's pipes, or Foundation
/// waiting for the program's exit (it watches a socket the child inherits), waits forever with
/// it. With `handle_sigill` and `handle_abort`, AddressSanitizer prints the trap's stack itself
/// and the program exits. (Swift Testing's exit tests turn the backtracer off in the same way.)
public func childProcessEnvironment(_ base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
    guard isRunningUnderAddressSanitizer else { return base }
    var environment = base
    environment["SWIFT_BACKTRACE"] = "enable=no"
    let options = environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
    environment["ASAN_OPTIONS"] = options + "handle_sigill=1:handle_abort=1"
    return environment
}

extension Process {
    /// How the process ended: its exit status, or minus the number of the signal that ended it;
    /// nil while it runs.
    ///
    /// Read without reaping the process (`waitid` with `WNOWAIT`, which leaves Foundation's own
    /// reaping undisturbed) until Foundation has: Foundation notices an exit only once every copy
    /// of a socket the child inherited is closed, so a process the child left behind holding one
    /// (a crash backtracer, say) hides the exit from `isRunning` and `waitUntilExit()` forever.
    public var exitStatus: Int32? {
        guard isRunning else {
            return terminationReason == .uncaughtSignal ? -terminationStatus : terminationStatus
        }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
              info._sifields._sigchld.si_pid == processIdentifier else { return nil }
        let status = info._sifields._sigchld.si_status
        return info.si_code == Int32(CLD_EXITED) ? status : -status
    }

    /// Waits at most `timeout` for the process to end, polling ``exitStatus``: how it ended, or
    /// nil if it still runs. Unlike `waitUntilExit()`, never waits forever.
    public func waitForExit(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = exitStatus { return status }
            if ContinuousClock.now >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// Waits at most `timeout` for the process to end and returns how it ended (see
    /// ``exitStatus``); when it still runs, kills it (`SIGKILL`) and returns nil, so that a test
    /// fails instead of waiting forever for a child that hangs.
    public func finish(within timeout: Duration) -> Int32? {
        if let status = waitForExit(timeout: timeout) { return status }
        kill(processIdentifier, SIGKILL)
        _ = waitForExit(timeout: .seconds(10))
        return nil
    }
}

/// A program run to its end: how it ended and what it printed.
public struct FinishedProcess: Sendable {
    /// Its exit status, or minus the signal that ended it (`-SIGKILL` when it had to be killed).
    public let status: Int32
    /// What it wrote to standard output.
    public let output: String
    /// What it wrote to standard error.
    public let error: String

    /// Standard output's non-empty lines.
    public var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// Runs `executable` with `arguments` and `input` on standard input, in
    /// ``childProcessEnvironment(_:)`` with `environment` added, and waits at most `timeout`
    /// for it to end (then kills it). Output goes through files, so no pipe fills up.
    public static func run(_ executable: URL, _ arguments: [String], input: String? = nil,
                           environment: [String: String] = [:], timeout: Duration = .seconds(120)) throws -> FinishedProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = childProcessEnvironment().merging(environment) { _, added in added }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("process-\(UUID().uuidString)").path
        defer { for suffix in [".out", ".err", ".in"] { try? FileManager.default.removeItem(atPath: base + suffix) } }
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".in", contents: Data((input ?? "").utf8))
        process.standardOutput = FileHandle(forWritingAtPath: base + ".out")
        process.standardError = FileHandle(forWritingAtPath: base + ".err")
        process.standardInput = FileHandle(forReadingAtPath: base + ".in")
        try process.run()
        let status = process.finish(within: timeout) ?? -SIGKILL
        return FinishedProcess(status: status, output: (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "",
                               error: (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")
    }

    /// The executable `program` beside the running test bundle (in the build's products).
    public static func locate(_ program: String) throws -> URL {
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
