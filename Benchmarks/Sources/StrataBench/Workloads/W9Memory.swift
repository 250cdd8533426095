import Foundation

/// W9: peak RSS (`VmHWM`, kB) right after the W1 repetitions. VmHWM is process-wide, so each
/// store runs W1 (`.normal` pair) in a fresh child process of this executable
/// (`--w9-child grdb|strata`), GRDB first, and reports that process's high-water mark.
enum W9Memory {
    static let childFlag = "--w9-child"

    static func run(_ table: Table) throws {
        let comparison = Comparison(workload: "W9", pairing: .normal, repetition: .median(of: 1))
        let result = try comparison.run(grdb: .measure { try child("grdb") }, strata: .measure { try child("strata") })
        table.add("W9 peak RSS after W1 (fresh process per store)", result, "vmhwm_kb", unit: "kB", better: .lower)
    }

    /// The child's work: W1's repetitions for one store, then its figures as one line.
    static func childMain(_ store: String) throws -> Never {
        let baseline = Machine.statusKilobytes("VmRSS")
        let repetition = Repetition.best(of: 3, by: "rows_s")
        var sync = ""
        for _ in 0..<repetition.count {
            sync = try (store == "grdb" ? W1BulkInsert.grdb(.normal) : W1BulkInsert.strata(.normal)).sync
        }
        print("\(Machine.statusKilobytes("VmHWM")) \(baseline) \(repetition.count) \(sync)")
        exit(0)
    }

    private static func child(_ store: String) throws -> Figures {
        let process = Process()
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [childFlag, store] + (Options.quick ? ["--quick"] : [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: " ", maxSplits: 3).map(String.init)
        guard process.terminationStatus == 0, fields.count == 4,
              let peak = Int(fields[0]), let baseline = Int(fields[1]) else {
            throw SanityFailure(description: "W9 child for \(store) failed: status \(process.terminationStatus), "
                                + "output \(String(decoding: data, as: UTF8.self))")
        }
        return Figures(sync: fields[3], [
            "vmhwm_kb": .integer(peak), "baseline_rss_kb": .integer(baseline), "w1_runs": .integer(Int(fields[2]) ?? 0),
        ], note: "fresh child process: W1 only (100k rows, 1 tx per run), then VmHWM")
    }
}
