import Foundation

/// Where a program's output goes: a terminal gets tables and progress, a pipe or file gets
/// machine-readable output and no progress (the `strata` tool and `strata-eventd ctl`).
public enum Terminal {
    /// Whether standard output is a terminal.
    public static var isOutputTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Whether standard error is a terminal (progress goes there).
    public static var isErrorTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// The terminal's width in columns: the window size of standard output, else `COLUMNS`,
    /// else 100.
    public static var width: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 100
    }

    /// Writes `text` to standard output as it is (no newline added).
    public static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `line` and a newline to standard output.
    public static func print(_ line: String) {
        write(line + "\n")
    }

    /// Writes `line` and a newline to standard error.
    public static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// The whole input of a command: the file at `path`, or standard input when `path` is nil;
    /// nil when the file cannot be read.
    public static func readInput(path: String?) -> Data? {
        guard let path else { return FileHandle.standardInput.readDataToEndOfFile() }
        return FileManager.default.contents(atPath: path)
    }
}
