import Foundation

/// Facts about the machine and process for the report header and W9.
enum Machine {
    static var cpuModel: String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        let model = line?.split(separator: ":", maxSplits: 1).last
        return model?.trimmingCharacters(in: .whitespaces) ?? "unknown"
    }

    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    static var date: String { ISO8601DateFormatter().string(from: Date()) }

    /// A `kB` field of /proc/self/status (e.g. "VmHWM", "VmRSS").
    static func statusKilobytes(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return -1 }
        return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "") ?? -1
    }

    /// The 1-minute load average (other processes compete for the cores when it is above 0).
    static var loadAverage: Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return Double(text.split(separator: " ").first ?? "") ?? -1
    }

    /// The report header line: date, cores, CPU model, load.
    static var header: String {
        "date: \(date)  nproc: \(cores)  CPU: \(cpuModel)  load average (1 min) at start: \(loadAverage)"
    }
}
