import Foundation
@testable import StrataEventd
import StrataTestSupport
import Testing

@Suite("Daemon configuration")
struct DaemonConfigTests {
    private func error(_ yaml: String) -> DaemonConfigError? {
        do {
            _ = try DaemonConfig.load(yaml: yaml)
            return nil
        } catch {
            return error
        }
    }

    @Test("a limit outside its range is refused, naming the setting", arguments: [
        ("maxLineBytes: -1", "maxLineBytes"), ("maxLineBytes: 0", "maxLineBytes"),
        ("maxLineBytes: 9223372036854775807", "maxLineBytes"), ("maxDepth: -1", "maxDepth"), ("maxDepth: 101", "maxDepth"),
        ("maxBatch: 0", "maxBatch"), ("maxBatch: -5", "maxBatch"), ("maxQueue: -1", "maxQueue"), ("maxQueue: 0", "maxQueue"),
        ("counters:\n  windowSeconds: 0", "counters.windowSeconds"),
        ("counters:\n  windowSeconds: 9223372036854775807", "counters.windowSeconds"),
        ("limits:\n  maxConnections: 9223372036854775807", "limits.maxConnections"),
        ("limits:\n  pageTimeoutSeconds: 9223372036854775807", "limits.pageTimeoutSeconds"),
        ("limits:\n  subscriptionBudgetMillis: 9223372036854775807", "limits.subscriptionBudgetMillis"),
        ("limits:\n  maxQueuedOutputBytes: 10", "limits.maxQueuedOutputBytes"),
        ("limits:\n  initialBudgetMillis: 9223372036854775807", "limits.initialBudgetMillis"),
        ("limits:\n  maxTotalPatternLength: 9223372036854775807", "limits.maxTotalPatternLength"),
        ("limits:\n  maxPinnedBytes: 10", "limits.maxPinnedBytes"),
        ("checkpointBytes: 1024", "checkpointBytes"), ("checkpointBytes: 9223372036854775807", "checkpointBytes"),
    ])
    func outOfRange(yaml: String, key: String) {
        let refused = error(yaml)
        #expect(refused?.key == key, "\(yaml): \(String(describing: refused))")
        #expect(refused?.message.contains("out of range") == true)
    }

    @Test("an unknown setting is refused at any level, naming it", arguments: [
        ("maxLines: 5", "maxLines"), ("counters:\n  window: 5", "counters.window"),
        ("limits:\n  maxClients: 5", "limits.maxClients"),
        ("alerts:\n  - name: a\n    query: TRUEPREDICATE\n    severity: high", "alerts[0].severity"),
    ])
    func unknownSetting(yaml: String, key: String) {
        let refused = error(yaml)
        #expect(refused?.key == key && refused?.message == "unknown setting", "\(String(describing: refused))")
    }

    @Test("an unknown setting whose name holds line breaks or control characters is named in one line", arguments: [
        ("? \"a\\nb\"\n: 1", "a\\nb"), ("\"x\\ry\": 1", "x\\ry"), ("\"e\\u001B[2J\": 1", "e\\u{1B}[2J"),
        // The fuzzer's finding: a plain multi-line key, whose folded line breaks became "\n".
        ("? \u{FFFD}typ=p'= e angth\r\r\r\r *a", "\u{FFFD}typ=p'= e angth\\n\\n\\n*a"),
    ])
    func unknownSettingNamedInOneLine(yaml: String, key: String) {
        let refused = error(yaml)
        #expect(refused?.key == key && refused?.message == "unknown setting", "\(String(describing: refused))")
        #expect(refused?.description.contains(where: \.isNewline) == false)
    }

    @Test("two alert rules named alike with a line break in the name are refused in one line")
    func duplicateMultilineAlertName() {
        let rule = "  - name: \"a\\nb\"\n    query: TRUEPREDICATE\n"
        let refused = error("alerts:\n" + rule + rule)
        #expect(refused?.key == "alerts[1].name" && refused?.message == "'a\\nb' names two rules", "\(String(describing: refused))")
    }

    @Test("malformed YAML, a document that is not a mapping and wrong types are refused in one line", arguments: [
        "maxBatch: [1,", "- 1\n- 2", "just text", "maxBatch: lots", "maxBatch: 99999999999999999999", "types: login",
        "alerts:\n  - name: a", "counters: 5", "maxBatch: 1\nmaxBatch: 2", "\t- x: [",
    ])
    func malformed(yaml: String) {
        guard let refused = error(yaml) else {
            Issue.record("accepted: \(yaml)")
            return
        }
        #expect(!refused.description.contains("\n"), "\(refused)")
    }

    @Test("empty lists and names that would make the daemon useless or ambiguous are refused", arguments: [
        ("types: []", "types"), ("types: [login, '']", "types[1]"),
        ("alerts:\n  - name: ''\n    query: TRUEPREDICATE", "alerts[0].name"),
        // An alert's id is `<rule>:<event id>`: rules `a` and `a:b` would give events `b:c` and `c` one id.
        ("alerts:\n  - name: 'a:b'\n    query: TRUEPREDICATE", "alerts[0].name"),
        ("alerts:\n  - name: a\n    query: TRUEPREDICATE\n  - name: a\n    query: FALSEPREDICATE", "alerts[1].name"),
    ])
    func uselessLists(yaml: String, key: String) {
        #expect(error(yaml)?.key == key)
    }

    @Test("an empty file or one of comments means the defaults")
    func emptyMeansDefaults() throws {
        #expect(try DaemonConfig.load(yaml: "") == DaemonConfig())
        #expect(try DaemonConfig.load(yaml: "# nothing set\n") == DaemonConfig())
    }

    @Test("the file is read with clear errors for a missing file, a directory, a large file and non-UTF-8 bytes")
    func files() throws {
        try withTemporaryDirectory { directory in
            func refusal(_ path: String) -> String? {
                do {
                    _ = try DaemonConfig.load(path: path)
                    return nil
                } catch {
                    return error.description
                }
            }
            #expect(refusal(directory.file("none.yaml"))?.contains("no such file") == true)
            #expect(refusal(directory.path)?.contains("a directory") == true)
            let large = directory.file("large.yaml")
            try Data(repeating: UInt8(ascii: "#"), count: DaemonConfig.maximumFileBytes + 1).write(to: URL(fileURLWithPath: large))
            #expect(refusal(large)?.contains("larger than") == true)
            let binary = directory.file("binary.yaml")
            try Data([0x6D, 0x3A, 0x20, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: binary))
            #expect(refusal(binary)?.contains("not UTF-8") == true)
            let good = directory.file("good.yaml")
            try Data("maxBatch: 7\n".utf8).write(to: URL(fileURLWithPath: good))
            #expect(try DaemonConfig.load(path: good).maxBatch == 7)
            let bad = directory.file("bad.yaml")
            try Data("maxBatch: 0\n".utf8).write(to: URL(fileURLWithPath: bad))
            #expect(refusal(bad) == "\(bad): maxBatch: 0 is out of range: it must be 1...100000")
        }
    }

    @Test("options are checked before anything starts: port, host, directories, socket path, limits")
    func options() {
        func refusal(_ change: (inout DaemonOptions) -> Void) -> String? {
            var options = DaemonOptions()
            options.dataPath = FileManager.default.temporaryDirectory.path + "/x.strata"
            change(&options)
            do {
                try options.validate()
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.port = -1 }?.contains("--port -1 is out of range") == true)
        #expect(refusal { $0.port = 65_536 }?.contains("out of range") == true)
        #expect(refusal { $0.port = 1 << 40 }?.contains("out of range") == true)
        #expect(refusal { $0.host = "localhost:80" }?.contains("not an IPv4 or IPv6 address") == true)
        #expect(refusal { $0.dataPath = "/nonexistent-\(UUID())/x.strata" }?.contains("does not exist") == true)
        #expect(refusal { $0.socketPath = "/tmp/" + String(repeating: "s", count: 120) }?.contains("--socket") == true)
        #expect(refusal { $0.config.maxBatch = 0 }?.contains("maxBatch") == true)
    }
}
