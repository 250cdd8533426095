/// Command-line options.
enum Options {
    /// Fewer repetitions and a shorter W7 (every line says so).
    static let quick = CommandLine.arguments.contains("--quick")

    /// The value after `flag`, if any.
    static func value(after flag: String) -> String? {
        guard let index = CommandLine.arguments.firstIndex(of: flag), index + 1 < CommandLine.arguments.count else {
            return nil
        }
        return CommandLine.arguments[index + 1]
    }
}
