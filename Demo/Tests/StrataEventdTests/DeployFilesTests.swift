import Foundation
@testable import StrataEventd
import StrataTestSupport
import Testing

/// `deploy/`: the systemd unit and the example configuration an operator installs.
@Suite("deploy/: the systemd unit and the example configuration", .serialized)
struct DeployFilesTests {
    /// The repository's `deploy/` folder.
    private static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../deploy").standardizedFileURL

    @Test("the example configuration loads: the defaults spelled out, plus its types and alert rule")
    func exampleConfiguration() throws {
        let text = try String(contentsOf: Self.deploy.appendingPathComponent("eventd.yaml"), encoding: .utf8)
        let config = try DaemonConfig.load(yaml: text)
        let defaults = try DaemonConfig.load(yaml: "")
        #expect(config.limits == defaults.limits && config.counters == defaults.counters)
        #expect(config.maxLineBytes == defaults.maxLineBytes && config.maxBatch == defaults.maxBatch
                && config.maxQueue == defaults.maxQueue && config.checkpointBytes == defaults.checkpointBytes)
        #expect(config.alerts.map(\.name) == ["big-purchase"] && config.types?.contains("purchase") == true)
    }

    @Test("the unit's command line starts the daemon (its paths moved to a temporary directory) with the example configuration")
    func unitCommandLine() throws {
        let unit = try String(contentsOf: Self.deploy.appendingPathComponent("strata-eventd.service"), encoding: .utf8)
        let execStart = unit.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .first { $0.hasPrefix("ExecStart=") }
        let words = try #require(execStart).dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(words.first == "/usr/local/bin/strata-eventd")
        let directory = DaemonProcess.temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: Self.deploy.appendingPathComponent("eventd.yaml").path,
                                         toPath: directory + "/eventd.yaml")
        var arguments = Array(words.dropFirst()).map { word in
            ["/var/lib/strata-eventd", "/etc/strata-eventd", "/run/strata-eventd"].reduce(word) {
                $0.replacingOccurrences(of: $1, with: directory)
            }
        }
        // DaemonProcess gives `--port 0` (the unit's 7400 may be taken here) and `--data` itself.
        func remove(_ option: String) throws -> String {
            let index = try #require(arguments.firstIndex(of: option))
            defer { arguments.removeSubrange(index...index + 1) }
            return arguments[index + 1]
        }
        _ = try remove("--port")
        let dataPath = try remove("--data")
        let daemon = try DaemonProcess(dataPath: dataPath, extraArguments: arguments)
        let client = try daemon.client()
        client.send(line: #"{"ping":true}"#)
        #expect(client.readLine() == #"{"pong":true}"#)
        #expect(FileManager.default.fileExists(atPath: directory + "/eventd.sock"))
        #expect(daemon.terminate() == 0)
    }

    @Test("systemd-analyze accepts the unit (with ExecStart pointing at the built daemon)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func unitVerifies() throws {
        let unit = try String(contentsOf: Self.deploy.appendingPathComponent("strata-eventd.service"), encoding: .utf8)
        let directory = DaemonProcess.temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/strata-eventd.service"
        try unit.replacingOccurrences(of: "/usr/local/bin/strata-eventd", with: try DaemonProcess.locate().path)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let result = try FinishedProcess.run(URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["verify", path])
        // Only what is wrong with this unit counts (the host's other units may have warnings).
        let ownProblems = (result.output + result.error).split(separator: "\n").filter { $0.contains("strata-eventd.service") }
        #expect(ownProblems.isEmpty, "\(ownProblems)")
    }
}
