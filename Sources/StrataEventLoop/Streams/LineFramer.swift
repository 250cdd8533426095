/// Splits a byte stream into lines at `\n` (dropping a `\r` before it), with a bound on a
/// line's length that also bounds memory: an over-long line is reported and its bytes are
/// skipped up to the next newline, never buffered whole.
///
/// ```swift
/// var framer = LineFramer(maxLineBytes: 65_536)
/// for event in framer.feed(chunk) {
///     switch event {
///     case .line(let bytes): handle(bytes)
///     case .oversize: reject()
///     }
/// }
/// if framer.finish() { countTruncatedLine() }     // the peer closed mid-line
/// ```
///
/// Not part of Strata's API: SPI for the demo daemon in `Demo/`, which imports it with
/// `@_spi(StrataDaemon) import StrataEventLoop`; it may change in any release.
@_spi(StrataDaemon) public struct LineFramer: Sendable {
    /// What a chunk produced, in order.
    @_spi(StrataDaemon) public enum Event: Sendable, Equatable {
        /// A complete line, without its newline.
        case line([UInt8])
        /// A line longer than the limit was skipped.
        case oversize
    }

    /// The longest line accepted, in bytes (without the newline).
    package let maxLineBytes: Int
    private var partial: [UInt8] = []
    /// Skipping the rest of an over-long line until the next newline.
    private var discarding = false

    /// A framer that accepts lines of up to `maxLineBytes` bytes (without the newline).
    @_spi(StrataDaemon) public init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// The lines completed by `chunk`.
    ///
    /// - Complexity: O(chunk length).
    @_spi(StrataDaemon) public mutating func feed(_ chunk: some Collection<UInt8>) -> [Event] {
        var events: [Event] = []
        var start = chunk.startIndex
        while start != chunk.endIndex {
            let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n"))
            let piece = chunk[start..<(newline ?? chunk.endIndex)]
            if !discarding {
                // A "\r" may end the buffered part; it only counts once the line is complete.
                if partial.count + piece.count > maxLineBytes + 1 {
                    discarding = true
                    partial.removeAll(keepingCapacity: false)
                } else {
                    partial.append(contentsOf: piece)
                }
            }
            guard let newline else { break }
            if discarding {
                events.append(.oversize)
                discarding = false
            } else {
                if partial.last == UInt8(ascii: "\r") { partial.removeLast() }
                events.append(partial.count > maxLineBytes ? .oversize : .line(partial))
                partial.removeAll(keepingCapacity: true)
            }
            start = chunk.index(after: newline)
        }
        return events
    }

    /// Ends the stream; returns true when it ended in the middle of a line (which is dropped).
    @_spi(StrataDaemon) public mutating func finish() -> Bool {
        defer {
            partial.removeAll()
            discarding = false
        }
        return !partial.isEmpty || discarding
    }
}
