import Foundation
import Testing

/// Replays the seed corpus of the storage fuzz target (Tests/StrataFaultTests/FuzzCorpus/<decoder>)
/// through its replay mode, built without the fuzzer: every input decodes without a trap.
@Suite("Storage fuzz corpus")
struct FuzzCorpusTests {
    @Test("every seed input of each storage decoder decodes without trapping", arguments: ["log", "checkpoint", "changeset", "page"])
    func replayCorpus(decoder: String) throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("FuzzCorpus/\(decoder)")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
            .map { corpus.appendingPathComponent($0).path }
        #expect(inputs.count >= 3, "the \(decoder) corpus is missing")

        let process = Process()
        process.executableURL = try locateExecutable("strata-storage-fuzz")
        process.arguments = inputs
        process.environment = childProcessEnvironment().merging(["STRATA_FUZZ_DECODER": decoder]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.finish(within: .seconds(120)) == 0, "\(text)")
        #expect(text.components(separatedBy: "ran without trapping").count - 1 == inputs.count, "\(text)")
    }

    /// An executable built beside the test bundle.
    private func locateExecutable(_ name: String) throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }
}
