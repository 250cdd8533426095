/// Command-line options.
enum Options {
    /// Fewer repetitions and a shorter W7 (every line says so).
    static let quick = CommandLine.arguments.contains("--quick")

    /// `--only W7,scaling`: run just these workloads (names as in `main.swift`'s list).
    static let only: Set<String>? = value(after: "--only").map { Set($0.split(separator: ",").map(String.init)) }

    /// Whether `workload` runs in this invocation.
    static func runs(_ workload: String) -> Bool { only?.contains(workload) ?? true }

    /// The value after `flag`, if any.
    static func value(after flag: String) -> String? {
        guard let index = CommandLine.arguments.firstIndex(of: flag), index + 1 < CommandLine.arguments.count else {
            return nil
        }
        return CommandLine.arguments[index + 1]
    }
}
