/// A point in time: seconds since 1970-01-01T00:00:00Z plus nanoseconds, as Realm stores dates.
public struct Timestamp: Hashable, Comparable, Sendable {
    /// Whole seconds since the Unix epoch (negative before it).
    package var seconds: Int64
    /// Nanoseconds within the second, in `0..<1_000_000_000`.
    package var nanoseconds: Int32

    /// Creates a timestamp.
    package init(seconds: Int64, nanoseconds: Int32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}

/// The 128 bits of an IEEE 754-2008 decimal128 (BID encoding), stored exactly as given.
///
/// The engine stores and compares the bits; decimal arithmetic and numeric ordering belong to
/// the model layer's `Decimal128`.
public struct Decimal128Bits: Hashable, Sendable {
    /// The low 64 bits.
    package var low: UInt64
    /// The high 64 bits (sign, combination field and the top of the coefficient).
    package var high: UInt64

    /// Creates the value from its two halves.
    package init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }
}

/// The 12 bytes of a BSON ObjectId, stored as a big-endian 8-byte head and 4-byte tail so that
/// comparing the parts compares the bytes.
public struct ObjectIdBits: Hashable, Comparable, Sendable {
    /// Bytes 0..<8, big-endian.
    package var head: UInt64
    /// Bytes 8..<12, big-endian.
    package var tail: UInt32

    /// Creates the value from its parts.
    package init(head: UInt64, tail: UInt32) {
        self.head = head
        self.tail = tail
    }

    public static func < (lhs: ObjectIdBits, rhs: ObjectIdBits) -> Bool { (lhs.head, lhs.tail) < (rhs.head, rhs.tail) }
}

/// The 16 bytes of a UUID as two big-endian halves.
public struct UUIDBits: Hashable, Comparable, Sendable {
    /// Bytes 0..<8, big-endian.
    package var high: UInt64
    /// Bytes 8..<16, big-endian.
    package var low: UInt64

    /// Creates the value from its halves.
    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public static func < (lhs: UUIDBits, rhs: UUIDBits) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}
