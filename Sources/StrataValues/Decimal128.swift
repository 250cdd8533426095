import Foundation

/// A 128-bit IEEE 754-2008 decimal floating-point number, as Realm Swift's `Decimal128`.
///
/// The value is stored in the standard BID (binary integer decimal) encoding: a sign, a
/// coefficient of up to 34 decimal digits and an exponent in `-6176...6111`, so a finite value
/// is `±coefficient × 10^exponent`. It also holds ±infinity and quiet or signaling NaNs. This is
/// the format Realm, MongoDB and the Intel decimal library use, and ``bid`` gives the exact bits.
///
/// Unlike `Double`, decimal fractions are exact: `0.1 + 0.2 == 0.3`. Arithmetic is exact
/// whenever the result fits in 34 digits and is otherwise rounded half-to-even; results too large
/// for the format become ±infinity and results too small lose digits down to zero.
///
/// A value remembers its exponent, so `1.0` and `1.00` have different ``bid`` bits (and
/// ``scientificString`` texts), yet compare equal with `==`, hash alike and print alike
/// (``stringValue``, as Realm prints it: `1`).
///
/// ```swift
/// let price: Decimal128 = "19.99"
/// let total = price * 3              // 59.97, exactly
/// let third = Decimal128(1) / 3      // 0.3333333333333333333333333333333333
/// ```
///
/// **Comparison and hashing.** `==`, `<`, `<=`, `>` and `>=` compare numeric values, as
/// IEEE 754 prescribes: `+0 == -0`, `1.0 == 1.00`, and every comparison involving a NaN is
/// `false`, so a NaN is not equal even to itself (as with `Double`). Hashing reduces a finite
/// value to its sign, its coefficient stripped of trailing zeros and the matching exponent
/// (all zeros hash alike), so values that are `==` hash the same. For a total order that also
/// places NaNs and distinguishes `1.0` from `1.00`, use ``isTotallyOrdered(belowOrEqualTo:)``.
public struct Decimal128: Sendable {
    /// The low 64 bits of the BID encoding (the bottom of the coefficient).
    internal var lowBits: UInt64
    /// The high 64 bits of the BID encoding (sign, combination field, top of the coefficient).
    internal var highBits: UInt64

    /// Creates a new zero-valued `Decimal128` (`0`, exponent 0).
    ///
    /// Equivalent to `Decimal128(0)`; its ``stringValue`` is `"0"`.
    public init() {
        self.init(negative: false, coefficient: 0, exponent: 0)
    }

    /// Creates a value from the raw bits of its BID encoding, exactly as stored.
    ///
    /// Every bit pattern is accepted and kept unchanged, so `Decimal128(bid: x.bid)` reproduces
    /// `x` bit for bit. Non-canonical encodings (a coefficient above `10^34 - 1`, or a NaN
    /// payload of `10^33` or more) read as a zero coefficient, as IEEE 754 specifies.
    ///
    /// - Parameter bid: The low and high 64-bit halves; `1` is `(low: 1, high: 0x3040000000000000)`.
    public init(bid: (low: UInt64, high: UInt64)) {
        lowBits = bid.low
        highBits = bid.high
    }

    /// The raw bits of the BID encoding, for lossless storage.
    ///
    /// The sign is bit 63 of `high`; for finite values the biased exponent (`exponent + 6176`)
    /// follows in bits 49...62 and the coefficient fills the remaining 113 bits. Feed the pair
    /// back to ``init(bid:)`` to recreate the value.
    public var bid: (low: UInt64, high: UInt64) { (lowBits, highBits) }
}

// MARK: - Layout

extension Decimal128 {
    static let exponentBias = 6176
    /// The smallest exponent (of the last coefficient digit) a finite value can have.
    static let minExponent = -6176
    /// The largest exponent (of the last coefficient digit) a finite value can have.
    static let maxExponent = 6111
    /// The number of decimal digits in a coefficient.
    static let precision = 34
    static let maxCoefficient: UInt128 = 9_999_999_999_999_999_999_999_999_999_999_999

    static let signMask: UInt64 = 0x8000_0000_0000_0000
    static let specialMask: UInt64 = 0x7800_0000_0000_0000
    static let nanMask: UInt64 = 0x7C00_0000_0000_0000
    static let signalingBit: UInt64 = 0x0200_0000_0000_0000
    static let largeFormMask: UInt64 = 0x6000_0000_0000_0000

    /// What kind of datum a bit pattern encodes.
    enum Kind: Equatable {
        case finite, infinity, quietNaN, signalingNaN
    }

    /// A decoded value: for finite values `±coefficient × 10^exponent`; for NaNs the
    /// coefficient is the payload.
    struct Parts {
        var negative: Bool
        var kind: Kind
        var coefficient: UInt128
        var exponent: Int
    }

    /// Encodes a finite value whose coefficient and exponent are already in range.
    init(negative: Bool, coefficient: UInt128, exponent: Int) {
        assert(coefficient <= Self.maxCoefficient, "coefficient has more than 34 digits")
        assert((Self.minExponent...Self.maxExponent).contains(exponent), "exponent out of range")
        let biased = UInt64(exponent + Self.exponentBias)
        highBits = (negative ? Self.signMask : 0) | (biased << 49) | UInt64(truncatingIfNeeded: coefficient >> 64)
        lowBits = UInt64(truncatingIfNeeded: coefficient)
    }

    /// Decodes the bit pattern.
    var parts: Parts {
        let negative = highBits & Self.signMask != 0
        if highBits & Self.specialMask == Self.specialMask {
            if highBits & Self.nanMask != Self.nanMask {
                return Parts(negative: negative, kind: .infinity, coefficient: 0, exponent: 0)
            }
            var payload = UInt128(highBits & 0x3FFF_FFFF_FFFF) << 64 | UInt128(lowBits)
            if payload >= Self.powersOfTen[33] { payload = 0 }
            let kind: Kind = highBits & Self.signalingBit != 0 ? .signalingNaN : .quietNaN
            return Parts(negative: negative, kind: kind, coefficient: payload, exponent: 0)
        }
        if highBits & Self.largeFormMask == Self.largeFormMask {
            // The implied coefficient is at least 2^113 > 10^34 - 1: non-canonical, reads as 0.
            let exponent = Int((highBits >> 47) & 0x3FFF) - Self.exponentBias
            return Parts(negative: negative, kind: .finite, coefficient: 0, exponent: exponent)
        }
        let exponent = Int((highBits >> 49) & 0x3FFF) - Self.exponentBias
        var coefficient = UInt128(highBits & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(lowBits)
        if coefficient > Self.maxCoefficient { coefficient = 0 }
        return Parts(negative: negative, kind: .finite, coefficient: coefficient, exponent: exponent)
    }
}

// MARK: - Constants and classification

extension Decimal128 {
    /// The largest finite value, `9.999999999999999999999999999999999E+6144`.
    ///
    /// Realm Swift's name for ``maximumDecimalNumber``.
    public static var max: Decimal128 {
        Decimal128(negative: false, coefficient: maxCoefficient, exponent: maxExponent)
    }

    /// The most negative finite value, `-9.999999999999999999999999999999999E+6144`.
    ///
    /// Realm Swift's name for ``minimumDecimalNumber``.
    public static var min: Decimal128 { Decimal128(negative: true, coefficient: maxCoefficient, exponent: maxExponent) }

    /// The largest finite value, `9.999999999999999999999999999999999E+6144` (same as ``max``).
    ///
    /// The name Realm's Objective-C `RLMDecimal128` uses.
    public static var maximumDecimalNumber: Decimal128 { max }

    /// The most negative finite value, `-9.999999999999999999999999999999999E+6144` (same as ``min``).
    ///
    /// The name Realm's Objective-C `RLMDecimal128` uses; note that it is the lowest value, not
    /// the smallest positive one.
    public static var minimumDecimalNumber: Decimal128 { min }

    /// A quiet NaN ("not a number") with no payload.
    ///
    /// Invalid operations such as `0 / 0` or `∞ - ∞` produce this value.
    public static var nan: Decimal128 { Decimal128(bid: (low: 0, high: nanMask)) }

    /// Positive infinity; negate it for negative infinity.
    ///
    /// Results whose magnitude exceeds ``max`` after rounding become infinity.
    public static var infinity: Decimal128 { Decimal128(bid: (low: 0, high: specialMask)) }

    /// Whether this value is a NaN, quiet or signaling.
    ///
    /// NaNs compare unequal to everything, themselves included.
    public var isNaN: Bool { highBits & Self.nanMask == Self.nanMask }

    /// Whether this value is a signaling NaN.
    ///
    /// Signaling NaNs only arise from ``init(bid:)`` or parsing `"sNaN"`; arithmetic on them
    /// returns a quiet NaN. (Realm Swift's version answers `isNaN` here; this one follows
    /// IEEE 754 and the stored bits.)
    public var isSignaling: Bool { highBits & (Self.nanMask | Self.signalingBit) == Self.nanMask | Self.signalingBit }

    /// Whether this value is a signaling NaN; the same as ``isSignaling``.
    ///
    /// Provided under both names, as Realm Swift does.
    public var isSignalingNaN: Bool { isSignaling }

    /// Whether this value is positive or negative infinity.
    ///
    /// NaNs are not infinite.
    public var isInfinite: Bool { highBits & Self.nanMask == Self.specialMask }

    /// Whether this value is finite: neither infinite nor a NaN.
    ///
    /// Zero and all values between ``min`` and ``max`` are finite.
    public var isFinite: Bool { highBits & Self.specialMask != Self.specialMask }

    /// Whether this value is zero, of either sign and any exponent.
    ///
    /// `0`, `-0`, `0.00` and `0E+10` are all zero and all equal.
    public var isZero: Bool {
        let p = parts
        return p.kind == .finite && p.coefficient == 0
    }

    /// Whether the sign bit is set: true for negative values, `-0`, `-Infinity` and negative NaNs.
    ///
    /// Use `x < 0` instead to ask whether a number is below zero.
    public var isSignMinus: Bool { highBits & Self.signMask != 0 }
}

// MARK: - Equality, ordering and hashing

extension Decimal128: Hashable, Comparable {
    /// Returns the numeric order of two values, or `nil` when either is a NaN.
    static func numericOrder(_ x: Decimal128, _ y: Decimal128) -> Int? {
        let (a, b) = (x.parts, y.parts)
        if a.kind == .quietNaN || a.kind == .signalingNaN || b.kind == .quietNaN || b.kind == .signalingNaN {
            return nil
        }
        func rank(_ p: Parts) -> Int { p.kind == .infinity ? (p.negative ? -1 : 1) : 0 }
        let (ra, rb) = (rank(a), rank(b))
        if ra != 0 || rb != 0 { return ra == rb ? 0 : (ra < rb ? -1 : 1) }
        let (aZero, bZero) = (a.coefficient == 0, b.coefficient == 0)
        if aZero && bZero { return 0 }
        if aZero { return b.negative ? 1 : -1 }
        if bZero { return a.negative ? -1 : 1 }
        if a.negative != b.negative { return a.negative ? -1 : 1 }
        let order = compareMagnitudes(a.coefficient, a.exponent, b.coefficient, b.exponent)
        return a.negative ? -order : order
    }

    /// Compares `c1 × 10^e1` with `c2 × 10^e2` for non-zero coefficients.
    static func compareMagnitudes(_ c1: UInt128, _ e1: Int, _ c2: UInt128, _ e2: Int) -> Int {
        let (d1, d2) = (digitCount(c1), digitCount(c2))
        let (adjusted1, adjusted2) = (e1 + d1 - 1, e2 + d2 - 1)
        if adjusted1 != adjusted2 { return adjusted1 < adjusted2 ? -1 : 1 }
        // Same leading-digit position: scale the shorter coefficient up; both stay within 34 digits.
        var (x, y) = (c1, c2)
        if e1 > e2 { x *= powersOfTen[e1 - e2] } else if e2 > e1 { y *= powersOfTen[e2 - e1] }
        return x == y ? 0 : (x < y ? -1 : 1)
    }

    /// Returns whether two values are numerically equal.
    ///
    /// `1.0 == 1.00` and `0 == -0` are `true`; any comparison with a NaN is `false`, so a NaN
    /// is not equal to itself. Compare ``bid`` to ask whether two values are the same bits.
    ///
    /// - Parameters:
    ///   - lhs: A value to compare.
    ///   - rhs: Another value to compare.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool { numericOrder(lhs, rhs) == 0 }

    /// Returns whether the first value is numerically less than the second.
    ///
    /// `false` whenever either operand is a NaN.
    ///
    /// - Parameters:
    ///   - lhs: A value to compare.
    ///   - rhs: Another value to compare.
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool { numericOrder(lhs, rhs).map { $0 < 0 } ?? false }

    /// Returns whether the first value is numerically less than or equal to the second.
    ///
    /// `false` whenever either operand is a NaN.
    ///
    /// - Parameters:
    ///   - lhs: A value to compare.
    ///   - rhs: Another value to compare.
    public static func <= (lhs: Decimal128, rhs: Decimal128) -> Bool { numericOrder(lhs, rhs).map { $0 <= 0 } ?? false }

    /// Returns whether the first value is numerically greater than the second.
    ///
    /// `false` whenever either operand is a NaN.
    ///
    /// - Parameters:
    ///   - lhs: A value to compare.
    ///   - rhs: Another value to compare.
    public static func > (lhs: Decimal128, rhs: Decimal128) -> Bool { numericOrder(lhs, rhs).map { $0 > 0 } ?? false }

    /// Returns whether the first value is numerically greater than or equal to the second.
    ///
    /// `false` whenever either operand is a NaN.
    ///
    /// - Parameters:
    ///   - lhs: A value to compare.
    ///   - rhs: Another value to compare.
    public static func >= (lhs: Decimal128, rhs: Decimal128) -> Bool { numericOrder(lhs, rhs).map { $0 >= 0 } ?? false }

    /// Hashes the numeric value, so that values that are `==` hash alike.
    ///
    /// A finite non-zero value hashes its sign, its coefficient with trailing zeros removed and
    /// the correspondingly raised exponent (`1.0` and `1.00` both hash as `1 × 10^0`); every zero
    /// hashes alike regardless of sign and exponent; infinities hash their sign; all NaNs hash
    /// alike (they are never equal to anything, so this only keeps hashing total).
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        let p = parts
        switch p.kind {
        case .quietNaN, .signalingNaN:
            hasher.combine(0 as UInt8)
        case .infinity:
            hasher.combine(1 as UInt8)
            hasher.combine(p.negative)
        case .finite:
            guard p.coefficient != 0 else {
                hasher.combine(2 as UInt8)
                return
            }
            var (coefficient, exponent) = (p.coefficient, p.exponent)
            while coefficient % 10 == 0 {
                coefficient /= 10
                exponent += 1
            }
            hasher.combine(3 as UInt8)
            hasher.combine(p.negative)
            hasher.combine(coefficient)
            hasher.combine(exponent)
        }
    }

    /// Returns whether this value comes before or equals `other` in IEEE 754's `totalOrder`.
    ///
    /// Unlike `<=`, this orders every pair of bit patterns consistently, which suits sorting and
    /// storage: `-NaN < -Infinity < negative numbers < -0 < +0 < positive numbers < +Infinity
    /// < +sNaN < +NaN`. Numerically equal values are ordered by exponent (`1.00` before `1.0`
    /// before `1` for positive values, the reverse for negative ones); NaNs of equal sign and
    /// kind are ordered by payload.
    ///
    /// - Parameter other: The value to compare with.
    /// - Returns: `true` if `self` is ordered below or equal to `other`.
    public func isTotallyOrdered(belowOrEqualTo other: Decimal128) -> Bool {
        let (a, b) = (parts, other.parts)
        if a.negative != b.negative { return a.negative }
        let order = Self.totalOrderOfAbsolutes(a, b)
        return a.negative ? order >= 0 : order <= 0
    }

    /// `totalOrder` of |a| and |b|: finite < infinity < signaling NaN < quiet NaN.
    private static func totalOrderOfAbsolutes(_ a: Parts, _ b: Parts) -> Int {
        func rank(_ kind: Kind) -> Int {
            switch kind {
            case .finite: 0
            case .infinity: 1
            case .signalingNaN: 2
            case .quietNaN: 3
            }
        }
        let (ra, rb) = (rank(a.kind), rank(b.kind))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch a.kind {
        case .infinity:
            return 0
        case .quietNaN, .signalingNaN:
            return a.coefficient == b.coefficient ? 0 : (a.coefficient < b.coefficient ? -1 : 1)
        case .finite:
            var order = 0
            if a.coefficient == 0 || b.coefficient == 0 {
                order = a.coefficient == b.coefficient ? 0 : (a.coefficient == 0 ? -1 : 1)
            } else {
                order = compareMagnitudes(a.coefficient, a.exponent, b.coefficient, b.exponent)
            }
            if order != 0 { return order }
            return a.exponent == b.exponent ? 0 : (a.exponent < b.exponent ? -1 : 1)
        }
    }
}

// MARK: - Literals and Codable

extension Decimal128: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// Creates a value from an integer literal, exactly (exponent 0).
    ///
    /// - Parameter value: The literal's value.
    public init(integerLiteral value: Int64) {
        self.init(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// Creates a value from a floating-point literal, via `Decimal128(Double)`.
    ///
    /// The literal is first a `Double`, which is then rounded to 15 significant digits as Realm
    /// does, so `let x: Decimal128 = 0.1` is exactly `0.1`. Use a string literal for more digits.
    ///
    /// - Parameter value: The literal's value as a `Double`.
    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// Creates a value from a string literal such as `"19.99"` or `"1E+10"`.
    ///
    /// Aborts if the string cannot be parsed; use ``init(string:)`` for strings known only at
    /// run time. Note that `Decimal128("1.5")` with a literal argument also uses this
    /// initializer (Swift treats `T(literal)` as a literal) and so returns a non-optional value.
    ///
    /// - Parameter value: The literal text.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}

extension Decimal128: Codable {
    /// Decodes a value from a string such as `"1.5"`, or from an integer or a floating-point number.
    ///
    /// Strings are parsed exactly as ``init(string:)`` does; numbers are converted as
    /// `Decimal128(Int64)` and `Decimal128(Double)` do. This matches Realm Swift.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` if the value is neither a parsable string nor a
    ///   number (a ``ValueParseError`` is attached as the underlying error for bad strings).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            do {
                try self.init(string: text)
            } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: container.codingPath, debugDescription: "\(error)", underlyingError: error))
            }
        } else if let integer = try? container.decode(Int64.self) {
            self.init(integer)
        } else if let double = try? container.decode(Double.self) {
            self.init(double)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Cannot convert value to Decimal128")
        }
    }

    /// Encodes the value as its ``stringValue`` (`"1.5E2"`, `"12.5"`), as Realm Swift does.
    ///
    /// The text decodes to an equal value; trailing zeros (the exponent a value remembers) are
    /// not kept, as in Realm.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws when it cannot encode a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
