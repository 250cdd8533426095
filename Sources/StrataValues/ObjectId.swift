import Foundation
import Synchronization

/// A 12-byte (probably) unique object identifier, as Realm Swift's and MongoDB's `ObjectId`.
///
/// ObjectIds identify objects without a central ID generator, like a UUID but smaller and
/// roughly ordered by creation time. The bytes are:
///
/// 1. a 4-byte big-endian timestamp, in whole seconds since the Unix epoch;
/// 2. 5 bytes chosen at random once per process;
/// 3. a 3-byte big-endian counter, started at a random value and incremented (atomically, so
///    concurrent callers never get the same value) for every ObjectId made.
///
/// Comparison is by bytes, so sorting by an ObjectId sorts by creation second and, within a
/// second of one process, by creation order (until the counter wraps after 16,777,216 ids).
///
/// ```swift
/// let id = ObjectId.generate()
/// let same = try ObjectId(string: id.stringValue)   // == id
/// let fixed: ObjectId = "5f3d2c1b0a09080706050403"
/// ```
public struct ObjectId: Sendable, Hashable, Comparable {
    /// Bytes 0..<8, big-endian: the timestamp, the 5 process bytes and no counter bits.
    internal var head: UInt64
    /// Bytes 8..<12, big-endian: the last process byte and the 3-byte counter.
    internal var tail: UInt32

    /// Creates an ObjectId from its two big-endian parts (`head` = bytes 0..<8, `tail` = bytes 8..<12).
    internal init(head: UInt64, tail: UInt32) {
        self.head = head
        self.tail = tail
    }

    /// The 5 random bytes shared by every ObjectId this process generates, in the low 40 bits.
    private static let processBytes = UInt64.random(in: 0...0xFF_FFFF_FFFF)

    /// The counter for the last three bytes, starting at a random value.
    private static let counter = Atomic<UInt32>(UInt32.random(in: 0...UInt32.max))

    /// Returns the next counter value (only its low 24 bits are used).
    private static func nextCounter() -> UInt32 {
        counter.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Creates a new, unique ObjectId for the current time.
    ///
    /// Thread-safe and cheap: one clock read and one atomic increment. Ids generated later in
    /// the same process sort after earlier ones unless the second changes backwards or the
    /// 24-bit counter wraps.
    ///
    /// - Returns: A fresh ObjectId.
    public static func generate() -> ObjectId {
        let seconds = UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970.rounded(.down)))
        let counter = nextCounter() & 0xFF_FFFF
        let head = UInt64(seconds) << 32 | (processBytes >> 8)
        let tail = UInt32(truncatingIfNeeded: processBytes & 0xFF) << 24 | counter
        return ObjectId(head: head, tail: tail)
    }

    /// The all-zero object id, as Realm Swift's `ObjectId()`; use ``generate()`` for a new one.
    public init() {
        self.init(bytes: Array(repeating: 0, count: 12))
    }

    /// Parses a 24-character hexadecimal string, such as `"5f3d2c1b0a09080706050403"`.
    ///
    /// Upper- and lowercase digits are both accepted; nothing else is (no whitespace, prefix or
    /// separators).
    ///
    /// - Parameter string: The text to parse.
    /// - Throws: ``ValueParseError`` if the string is not exactly 24 hexadecimal digits.
    public init(string: String) throws {
        let utf8 = string.utf8
        guard utf8.count == 24 else {
            throw ValueParseError(
                input: string,
                message: "an ObjectId string must be 24 hexadecimal digits; got \(string.count) characters")
        }
        var head: UInt64 = 0
        var tail: UInt32 = 0
        for (offset, byte) in utf8.enumerated() {
            guard let nibble = Self.hexValue(byte) else {
                throw ValueParseError(input: string, message: "an ObjectId string must contain only hexadecimal digits")
            }
            if offset < 16 {
                head = head << 4 | UInt64(nibble)
            } else {
                tail = tail << 4 | UInt32(nibble)
            }
        }
        self.init(head: head, tail: tail)
    }

    /// Parses a 24-character hexadecimal static string, aborting if it is invalid.
    ///
    /// As Realm Swift's `ObjectId(_:)`, for ids written in source code. Use ``init(string:)``
    /// for text known only at run time.
    ///
    /// - Parameter str: The 24 hexadecimal digits.
    public init(_ str: StaticString) {
        self.init(stringLiteral: str.withUTF8Buffer { String(decoding: $0, as: UTF8.self) })
    }

    /// Creates an ObjectId from a date, a machine identifier and a process identifier, as Realm does.
    ///
    /// The timestamp is the date's whole seconds since 1970 (rounded down, truncated to 32
    /// bits); bytes 4...6 are the low three bytes of `machineId` and bytes 7...8 the low two
    /// bytes of `processId`, least significant byte first (as Realm Core lays them out on
    /// little-endian machines); the last three bytes come from the shared counter, as for
    /// ``generate()``.
    ///
    /// - Parameters:
    ///   - timestamp: The creation time to record.
    ///   - machineId: The machine identifier; only its low 24 bits are used.
    ///   - processId: The process identifier; only its low 16 bits are used.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        // A date outside the 64-bit range is clamped, never trapped on (as Realm converts it
        // through its Timestamp); the id keeps the low 32 bits of the seconds.
        let seconds = UInt32(truncatingIfNeeded: Self.wholeSeconds(timestamp))
        let machine = UInt64(truncatingIfNeeded: machineId)
        let process = UInt64(truncatingIfNeeded: processId)
        var head = UInt64(seconds) << 32
        head |= (machine & 0xFF) << 24 | (machine >> 8 & 0xFF) << 16 | (machine >> 16 & 0xFF) << 8
        head |= process & 0xFF
        let tail = UInt32(truncatingIfNeeded: process >> 8 & 0xFF) << 24 | (Self.nextCounter() & 0xFF_FFFF)
        self.init(head: head, tail: tail)
    }

    /// Creates an ObjectId from its 12 bytes, most significant (the timestamp's) first.
    ///
    /// The inverse of ``bytes``; use it to read ObjectIds back from storage.
    ///
    /// - Parameter bytes: Exactly 12 bytes; any other count is a programmer error and aborts.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 12, "an ObjectId is 12 bytes; got \(bytes.count)")
        var head: UInt64 = 0
        for byte in bytes[0..<8] { head = head << 8 | UInt64(byte) }
        var tail: UInt32 = 0
        for byte in bytes[8..<12] { tail = tail << 8 | UInt32(byte) }
        self.init(head: head, tail: tail)
    }

    /// The 12 bytes, most significant (the timestamp's) first.
    ///
    /// Comparing two ObjectIds compares these bytes lexicographically.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: head >> (56 - 8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: tail >> (24 - 8 * $0)) }
    }

    /// The ObjectId as 24 lowercase hexadecimal digits.
    ///
    /// ``init(string:)`` parses it back to an equal ObjectId.
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(24)
        for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int(head >> UInt64(shift) & 0xF)]) }
        for shift in stride(from: 28, through: 0, by: -4) { text.append(digits[Int(tail >> UInt32(shift) & 0xF)]) }
        return String(decoding: text, as: UTF8.self)
    }

    /// The creation time recorded in the first four bytes, to the whole second.
    ///
    /// For ids from ``generate()`` this is the generation time rounded down to the second.
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(head >> 32))
    }

    /// Returns whether the first ObjectId's bytes sort before the second's.
    ///
    /// - Parameters:
    ///   - lhs: An ObjectId to compare.
    ///   - rhs: Another ObjectId to compare.
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.head, lhs.tail) < (rhs.head, rhs.tail)
    }

    /// The whole seconds of `date` since the epoch, rounded down and clamped to `Int64`'s range
    /// (a NaN time is the epoch).
    private static func wholeSeconds(_ date: Date) -> Int64 {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard !interval.isNaN else { return 0 }
        // 2^63 is the first double Int64 cannot hold; -2^63 is exactly Int64.min.
        guard interval < 9_223_372_036_854_775_808.0 else { return .max }
        guard interval >= -9_223_372_036_854_775_808.0 else { return .min }
        return Int64(interval)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension ObjectId: CustomStringConvertible, ExpressibleByStringLiteral, Codable {
    /// The same as ``stringValue``: 24 lowercase hexadecimal digits.
    ///
    /// `print(id)` prints, for example, `5f3d2c1b0a09080706050403`.
    public var description: String { stringValue }

    /// Creates an ObjectId from a 24-digit hexadecimal string literal.
    ///
    /// Aborts if the literal is not 24 hexadecimal digits; use ``init(string:)`` for text known
    /// only at run time.
    ///
    /// - Parameter value: The literal text.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Decodes an ObjectId from its 24-digit hexadecimal string, as Realm Swift does.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.typeMismatch` if the value is not a string, and
    ///   `DecodingError.dataCorrupted` (with a ``ValueParseError`` underneath) if the string is
    ///   not 24 hexadecimal digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(string: text)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: "\(error)", underlyingError: error))
        }
    }

    /// Encodes the ObjectId as its 24-digit lowercase hexadecimal ``stringValue``.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws when it cannot encode a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
