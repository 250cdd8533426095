import Foundation
import StrataTerminal

/// Progress of a long operation on standard error, only when it is a terminal and only once the
/// operation has taken a second: `verifying… 2.4 s`, `exporting 120,000/500,000 objects…`. The
/// line is rewritten in place and cleared when the operation ends. Silent when piped.
final class Progress {
    private let label: String
    private let total: Int?
    private let started = Date()
    private var lastDrawn = Date.distantPast
    private var drawn = false
    private let enabled: Bool

    /// Progress of `label` (`exporting`), out of `total` items when known.
    init(_ label: String, total: Int? = nil, enabled: Bool = Terminal.isErrorTerminal) {
        self.label = label
        self.total = total
        self.enabled = enabled
    }

    /// Reports `done` items (at most ten redraws a second).
    func update(_ done: Int) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(started) >= 1, now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
        lastDrawn = now
        let count = total.map { "\(Self.grouped(done))/\(Self.grouped($0))" } ?? Self.grouped(done)
        draw("\(label) \(count)… \(elapsed)")
    }

    /// Runs `body`, showing the elapsed time once it has taken a second (for work that reports
    /// no count), then clears the line.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let label = self.label, started = self.started
        timer.schedule(deadline: .now() + 1, repeating: 0.25)
        timer.setEventHandler {
            let seconds = String(format: "%.1f s", Date().timeIntervalSince(started))
            FileHandle.standardError.write(Data("\r\u{1B}[K\(label)… \(seconds)".utf8))
        }
        timer.resume()
        defer {
            timer.cancel()
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
        return try body()
    }

    /// Clears the progress line.
    func finish() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }

    private var elapsed: String { String(format: "%.1f s", Date().timeIntervalSince(started)) }

    private func draw(_ text: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        drawn = true
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return (number < 0 ? "-" : "") + groups.joined(separator: ",")
    }
}
