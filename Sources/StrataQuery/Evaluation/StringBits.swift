import StrataEngine

/// The two words of a `String`, read in place: a fast test of whether two strings hold the same
/// UTF-8 bytes when they are small, which a scan comparing a column with a short constant meets on
/// nearly every row.
///
/// A small string (up to 15 UTF-8 bytes on 64-bit platforms) keeps its bytes, its count and
/// whether it is ASCII in these words, its unused bytes zero, so two small strings hold the same
/// bytes exactly when their words are equal. The standard library's 64-bit layout marks a small
/// string with bit 61 of the second word; `StringBitsTests` holds that to strings built in many
/// ways. Anything else is compared by its bytes (``Value/sameUTF8(_:_:)``).
struct StringBits: Equatable {
    let low: UInt64
    let high: UInt64

    /// The words of the string at `string`.
    @inline(__always)
    init(_ string: UnsafePointer<String>) {
        let raw = UnsafeRawPointer(string)
        low = raw.load(as: UInt64.self)
        high = raw.load(fromByteOffset: 8, as: UInt64.self)
    }

    /// The words of `string`.
    init(_ string: String) {
        self = withUnsafePointer(to: string) { StringBits($0) }
    }

    /// Whether the words hold the string's bytes (a small string).
    @inline(__always)
    var isSmall: Bool { high & (1 << 61) != 0 }

    /// Whether the string at `stored` holds the same UTF-8 bytes as `constant`, whose words are
    /// `self`: decided from the words alone when they are equal or both strings are small.
    @inline(__always)
    func sameUTF8(_ stored: UnsafePointer<String>, _ constant: String) -> Bool {
        let bits = StringBits(stored)
        if bits == self { return true }
        if bits.isSmall && isSmall { return false }
        return Value.sameUTF8(stored.pointee, constant)
    }
}
