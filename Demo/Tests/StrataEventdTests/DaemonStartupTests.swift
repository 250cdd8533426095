import Foundation
import StrataTestSupport
import Testing

/// The executable refuses what it cannot run with: one line on standard error and a non-zero
/// exit, never a hang, a trap or a daemon that starts and misbehaves.
@Suite("strata-eventd start-up checks")
struct DaemonStartupTests {
    /// Runs the daemon with `arguments` (plus a data path in a fresh directory) and checks that
    /// it exits non-zero with one `strata-eventd: error:` line containing `expected`.
    private func expectRefusal(_ arguments: [String], config: String? = nil, _ expected: String,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        try withTemporaryDirectory { directory in
            var all = ["--port", "0", "--data", directory.file("store.strata")]
            if let config {
                try Data(config.utf8).write(to: URL(fileURLWithPath: directory.file("config.yaml")))
                all += ["--config", directory.file("config.yaml")]
            }
            let (status, standardError) = try DaemonProcess.run(arguments: all + arguments)
            let lines = standardError.split(separator: "\n")
            #expect(status > 0, "exit status \(status) for \(arguments): \(standardError)", sourceLocation: sourceLocation)
            #expect(lines.count == 1 && lines.first?.hasPrefix("strata-eventd: error: ") == true
                    && lines.first?.contains(expected) == true,
                    "for \(arguments) \(config ?? ""): \(standardError)", sourceLocation: sourceLocation)
        }
    }

    @Test("bad arguments: ports out of range, a missing directory, a bad log level, a bad host")
    func badArguments() throws {
        try expectRefusal(["--port=-1"], "--port -1 is out of range")
        try expectRefusal(["--port", "70000"], "--port 70000 is out of range")
        try expectRefusal(["--port", "1099511627776"], "out of range")
        try expectRefusal(["--port", "many"], "port")
        try expectRefusal(["--data", "/nonexistent-strata/dir/store.strata"], "does not exist")
        try expectRefusal(["--log-level", "loud"], "--log-level 'loud' is not one of")
        try expectRefusal(["--host", "not-an-address"], "not an IPv4 or IPv6 address")
    }

    @Test("a port in use is one error line")
    func portInUse() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath())
        defer { daemon.terminate() }
        try expectRefusal(["--port", "\(daemon.port)"], "EADDRINUSE")
    }

    @Test("bad configuration files: missing, a directory, malformed, unknown keys, limits out of range")
    func badConfigs() throws {
        try expectRefusal(["--config", "/nonexistent-strata.yaml"], "no such file")
        try expectRefusal(["--config", "/tmp"], "it is a directory")
        let cases: [(String, String)] = [
            ("maxBatch: [1,", "invalid YAML"), ("maxLines: 5", "maxLines: unknown setting"),
            ("maxLineBytes: -1", "maxLineBytes: -1 is out of range"), ("maxBatch: 0", "maxBatch: 0 is out of range"),
            ("maxQueue: -1", "maxQueue"), ("maxDepth: 1000", "maxDepth"), ("maxLineBytes: 9223372036854775807", "maxLineBytes"),
            ("counters:\n  windowSeconds: 0", "counters.windowSeconds"), ("counters:\n  windowSeconds: 9223372036854775807", "windowSeconds"),
            ("- 1", "mapping"), ("alerts:\n  - name: bad\n    query: \"type ==\"", "alert rule 'bad'"),
        ]
        for (yaml, expected) in cases { try expectRefusal([], config: yaml, expected) }
    }
}
