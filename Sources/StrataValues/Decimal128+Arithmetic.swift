// Decimal arithmetic on the decoded form `±coefficient × 10^exponent`.
//
// Every operation computes the exact result, or one that is exact except for a "sticky" flag
// meaning "the true magnitude is a little above this integer", in a 256-bit integer, and then
// rounds once, half-to-even, to 34 digits (`rounded(...)`). The operands are at most 34 digits,
// so 256 bits (77 digits) suffice: products need 68 digits, quotients are formed from a 69-digit
// dividend, and sums whose exponents differ by more than the 72-digit window are reduced to a
// truncated addend plus the sticky flag.

// MARK: - Powers of ten and a 256-bit integer

extension Decimal128 {
    /// `10^0 ... 10^38`, every power of ten that fits in `UInt128`.
    static let powersOfTen: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1...38 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// `10^0 ... 10^77`, every power of ten that fits in 256 bits.
    static let widePowersOfTen: [Wide] = {
        var powers = [Wide(1)]
        for _ in 1...77 { powers.append(powers[powers.count - 1].multiplied(by: 10)) }
        return powers
    }()

    /// The number of decimal digits in `value` (1 for zero).
    static func digitCount(_ value: UInt128) -> Int {
        let bits = 128 - value.leadingZeroBitCount
        let estimate = (bits * 1233) >> 12  // floor(bits × log10(2)), never above the digit count
        return estimate + (value >= powersOfTen[estimate] ? 1 : 0)
    }

    /// An unsigned 256-bit integer, just big enough for exact intermediate results.
    struct Wide: Comparable {
        var high: UInt128
        var low: UInt128

        init(_ value: UInt128) {
            high = 0
            low = value
        }

        init(high: UInt128, low: UInt128) {
            self.high = high
            self.low = low
        }

        /// The full product of two 128-bit integers.
        static func product(_ a: UInt128, _ b: UInt128) -> Wide {
            let (high, low) = a.multipliedFullWidth(by: b)
            return Wide(high: high, low: low)
        }

        var isZero: Bool { high == 0 && low == 0 }

        /// The number of decimal digits (1 for zero).
        var digitCount: Int {
            if high == 0 { return Decimal128.digitCount(low) }
            let bits = 256 - high.leadingZeroBitCount
            let estimate = (bits * 1233) >> 12
            return estimate + (self >= Decimal128.widePowersOfTen[estimate] ? 1 : 0)
        }

        /// `self × factor`; the caller guarantees the product fits in 256 bits.
        func multiplied(by factor: UInt128) -> Wide {
            let (carry, low) = self.low.multipliedFullWidth(by: factor)
            let (high, overflow) = self.high.multipliedReportingOverflow(by: factor)
            assert(!overflow, "256-bit overflow")
            return Wide(high: high &+ carry, low: low)
        }

        /// `self × 10^exponent`; the caller guarantees the product fits in 256 bits.
        func scaled(byPowerOfTen exponent: Int) -> Wide {
            var result = self
            var remaining = exponent
            while remaining > 0 {
                let step = Swift.min(remaining, 38)
                result = result.multiplied(by: Decimal128.powersOfTen[step])
                remaining -= step
            }
            return result
        }

        /// Floor division by a non-zero 128-bit divisor.
        func quotientAndRemainder(dividingBy divisor: UInt128) -> (quotient: Wide, remainder: UInt128) {
            let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: divisor)
            let (lowQuotient, remainder) = divisor.dividingFullWidth((high: highRemainder, low: low))
            return (Wide(high: highQuotient, low: lowQuotient), remainder)
        }

        static func + (a: Wide, b: Wide) -> Wide {
            let (low, carry) = a.low.addingReportingOverflow(b.low)
            return Wide(high: a.high &+ b.high &+ (carry ? 1 : 0), low: low)
        }

        /// `a - b`; the caller guarantees `a >= b`.
        static func - (a: Wide, b: Wide) -> Wide {
            let (low, borrow) = a.low.subtractingReportingOverflow(b.low)
            return Wide(high: a.high &- b.high &- (borrow ? 1 : 0), low: low)
        }

        static func < (a: Wide, b: Wide) -> Bool { (a.high, a.low) < (b.high, b.low) }
    }
}

// MARK: - Rounding

extension Decimal128 {
    /// Rounds `±(coefficient + ε) × 10^exponent` half-to-even into a `Decimal128`.
    ///
    /// `ε` is 0 when `sticky` is false and strictly between 0 and 1 when it is true; callers that
    /// set `sticky` pass at least `precision + 1` digits, so `ε` never decides more than "above".
    /// Digits are dropped to fit `precision` digits and to raise the exponent to the minimum;
    /// an exponent above the maximum is lowered by padding the coefficient with zeros when it
    /// has room, and otherwise the result overflows to infinity.
    static func rounded(
        negative: Bool, coefficient: Wide, exponent: Int, sticky: Bool,
        precision: Int = Decimal128.precision
    ) -> Decimal128 {
        if coefficient.isZero && !sticky {
            return zero(negative: negative, exponent: exponent)
        }
        var exponent = exponent
        let digits = coefficient.isZero ? 0 : coefficient.digitCount
        let drop = Swift.max(0, digits - precision, minExponent - exponent)
        var result: UInt128
        if drop > 0 {
            let (kept, roundingDigit, rest) = shiftRight(coefficient, by: drop)
            result = kept.low
            if roundingDigit > 5 || (roundingDigit == 5 && (rest || sticky || result & 1 == 1)) {
                result += 1
            }
            exponent += drop
            if result == powersOfTen[precision] {
                result /= 10
                exponent += 1
            }
        } else {
            result = coefficient.low
        }
        if result == 0 {
            return zero(negative: negative, exponent: exponent)
        }
        if exponent > maxExponent {
            let padding = exponent - maxExponent
            guard digitCount(result) + padding <= Decimal128.precision else {
                return negative ? -infinity : infinity
            }
            result *= powersOfTen[padding]
            exponent = maxExponent
        }
        return Decimal128(negative: negative, coefficient: result, exponent: exponent)
    }

    /// A zero with the given sign and the exponent clamped into range.
    static func zero(negative: Bool, exponent: Int) -> Decimal128 {
        Decimal128(
            negative: negative, coefficient: 0, exponent: Swift.min(Swift.max(exponent, minExponent), maxExponent))
    }

    /// Drops `count >= 1` low digits: returns what is left, the first dropped digit, and whether
    /// any digit below that one is non-zero.
    private static func shiftRight(_ value: Wide, by count: Int) -> (kept: Wide, roundingDigit: UInt128, rest: Bool) {
        guard count <= 78 else { return (Wide(0), 0, !value.isZero) }  // value < 10^78
        var value = value
        var rest = false
        var remaining = count - 1
        while remaining > 0 {
            let step = Swift.min(remaining, 38)
            let (quotient, remainder) = value.quotientAndRemainder(dividingBy: powersOfTen[step])
            rest = rest || remainder != 0
            value = quotient
            remaining -= step
        }
        let (kept, digit) = value.quotientAndRemainder(dividingBy: 10)
        return (kept, digit, rest)
    }

    /// The quiet NaN an operation on a NaN operand returns, or `nil` if neither is a NaN.
    ///
    /// The first NaN operand's sign and payload are kept and the signaling bit is cleared.
    private static func propagatedNaN(_ x: Decimal128, _ y: Decimal128) -> Decimal128? {
        for operand in [x, y] where operand.isNaN {
            return Decimal128(bid: (low: operand.lowBits, high: operand.highBits & ~signalingBit))
        }
        return nil
    }
}

// MARK: - Operations

extension Decimal128 {
    /// `x + y`, with `y`'s sign flipped when `subtract` is set.
    static func add(_ x: Decimal128, _ y: Decimal128, subtract: Bool) -> Decimal128 {
        if let nan = propagatedNaN(x, y) { return nan }
        var a = x.parts
        var b = y.parts
        if subtract { b.negative.toggle() }
        if a.kind == .infinity || b.kind == .infinity {
            if a.kind == .infinity && b.kind == .infinity && a.negative != b.negative { return nan }
            return (a.kind == .infinity ? a : b).negative ? -infinity : infinity
        }
        // Zero operands: the result is the other operand, at the smaller exponent where possible.
        if a.coefficient == 0 && b.coefficient == 0 {
            let negative = a.negative && b.negative  // -0 + -0 = -0; mixed signs give +0
            return zero(negative: negative, exponent: Swift.min(a.exponent, b.exponent))
        }
        if a.exponent < b.exponent { swap(&a, &b) }  // now a has the larger exponent
        let gap = a.exponent - b.exponent
        if a.coefficient == 0 || b.coefficient == 0 {
            let (value, zeroExponent) = a.coefficient == 0 ? (b, a.exponent) : (a, b.exponent)
            let headroom = Decimal128.precision - digitCount(value.coefficient)
            let shift = Swift.max(0, Swift.min(value.exponent - zeroExponent, headroom))
            return Decimal128(
                negative: value.negative, coefficient: value.coefficient * powersOfTen[shift],
                exponent: value.exponent - shift)
        }
        let digitsA = digitCount(a.coefficient)
        if digitsA + gap <= 72 {
            // Exact: align a to b's exponent.
            let scaledA = Wide(a.coefficient).scaled(byPowerOfTen: gap)
            let wideB = Wide(b.coefficient)
            if a.negative == b.negative {
                return rounded(negative: a.negative, coefficient: scaledA + wideB, exponent: b.exponent, sticky: false)
            }
            if scaledA == wideB { return zero(negative: false, exponent: b.exponent) }
            let (larger, smaller, negative) =
                scaledA > wideB ? (scaledA, wideB, a.negative) : (wideB, scaledA, b.negative)
            return rounded(negative: negative, coefficient: larger - smaller, exponent: b.exponent, sticky: false)
        }
        // Far apart: widen a to 72 digits; b falls entirely below the rounding point, so only its
        // truncated value and whether anything was cut off (sticky) matter.
        let shift = 72 - digitsA
        let scaledA = Wide(a.coefficient).scaled(byPowerOfTen: shift)
        let exponent = a.exponent - shift
        let cut = gap - shift  // >= 1 digits of b lie below `exponent`
        var truncatedB: UInt128 = 0
        var sticky = true
        if cut <= 34 {
            let (quotient, remainder) = b.coefficient.quotientAndRemainder(dividingBy: powersOfTen[cut])
            truncatedB = quotient
            sticky = remainder != 0
        }
        if a.negative == b.negative {
            return rounded(
                negative: a.negative, coefficient: scaledA + Wide(truncatedB), exponent: exponent,
                sticky: sticky)
        }
        // a - (tb + ε) = (a - tb - 1) + (1 - ε) when ε > 0.
        let difference = scaledA - Wide(truncatedB + (sticky ? 1 : 0))
        return rounded(negative: a.negative, coefficient: difference, exponent: exponent, sticky: sticky)
    }

    /// `x × y`.
    static func multiply(_ x: Decimal128, _ y: Decimal128) -> Decimal128 {
        if let nan = propagatedNaN(x, y) { return nan }
        let (a, b) = (x.parts, y.parts)
        let negative = a.negative != b.negative
        if a.kind == .infinity || b.kind == .infinity {
            let zeroOperand = (a.kind == .finite && a.coefficient == 0) || (b.kind == .finite && b.coefficient == 0)
            if zeroOperand { return nan }
            return negative ? -infinity : infinity
        }
        return rounded(
            negative: negative, coefficient: .product(a.coefficient, b.coefficient),
            exponent: a.exponent + b.exponent, sticky: false)
    }

    /// `x ÷ y`.
    static func divide(_ x: Decimal128, _ y: Decimal128) -> Decimal128 {
        if let nan = propagatedNaN(x, y) { return nan }
        let (a, b) = (x.parts, y.parts)
        let negative = a.negative != b.negative
        switch (a.kind == .infinity, b.kind == .infinity) {
        case (true, true): return nan
        case (true, false): return negative ? -infinity : infinity
        case (false, true): return zero(negative: negative, exponent: minExponent)
        case (false, false): break
        }
        if b.coefficient == 0 {
            if a.coefficient == 0 { return nan }
            return negative ? -infinity : infinity
        }
        let preferredExponent = a.exponent - b.exponent
        if a.coefficient == 0 { return zero(negative: negative, exponent: preferredExponent) }
        // Scale the dividend so the quotient has 35 or 36 digits: one more than needed to round.
        let scale = 35 + digitCount(b.coefficient) - digitCount(a.coefficient)
        let dividend = Wide(a.coefficient).scaled(byPowerOfTen: scale)
        let (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: b.coefficient)
        var coefficient = quotient.low  // < 10^36
        var exponent = preferredExponent - scale
        if remainder == 0 {
            // Exact: use the exponent closest to the preferred one.
            while exponent < preferredExponent && coefficient % 10 == 0 {
                coefficient /= 10
                exponent += 1
            }
        }
        return rounded(negative: negative, coefficient: Wide(coefficient), exponent: exponent, sticky: remainder != 0)
    }
}

// MARK: - Public operators

extension Decimal128 {
    /// The absolute value: this value with its sign bit cleared.
    ///
    /// Exact for every value, keeps the exponent (`(-1.50).magnitude` is `1.50`), and maps a
    /// NaN to a positive NaN. (Realm Swift computes this through `Double`; this one is exact.)
    public var magnitude: Decimal128 { Decimal128(bid: (low: lowBits, high: highBits & ~Self.signMask)) }

    /// A type that can represent the absolute value of a `Decimal128`: `Decimal128` itself.
    public typealias Magnitude = Decimal128

    /// Returns the value with its sign flipped.
    ///
    /// Exact; applies to zeros, infinities and NaNs too (`-(0)` is `-0`).
    ///
    /// - Parameter operand: The value to negate.
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        Decimal128(bid: (low: operand.lowBits, high: operand.highBits ^ signMask))
    }

    /// Flips the sign of this value in place.
    ///
    /// Exact; see `-x`.
    public mutating func negate() {
        highBits ^= Self.signMask
    }

    /// Returns the sum of two values.
    ///
    /// Exact when the result fits in 34 digits, otherwise rounded half-to-even. An exact result
    /// takes the smaller operand exponent (`1.5 + 1.25` is `2.75`, `1.0 + 2` is `3.0`). Infinities
    /// of opposite sign give NaN, a NaN operand gives NaN, and overflow gives ±infinity.
    ///
    /// - Parameters:
    ///   - lhs: The first value to add.
    ///   - rhs: The second value to add.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { add(lhs, rhs, subtract: false) }

    /// Returns the difference of two values.
    ///
    /// Rounded like `+`; `x - x` is `+0`.
    ///
    /// - Parameters:
    ///   - lhs: The value to subtract from.
    ///   - rhs: The value to subtract.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { add(lhs, rhs, subtract: true) }

    /// Returns the product of two values.
    ///
    /// Exact when the product of the coefficients fits in 34 digits (its exponent is the sum of
    /// the operands'), otherwise rounded half-to-even; `0 × ∞` is NaN and overflow is ±infinity.
    ///
    /// - Parameters:
    ///   - lhs: The first value to multiply.
    ///   - rhs: The second value to multiply.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { multiply(lhs, rhs) }

    /// Returns the quotient of two values.
    ///
    /// An exact quotient uses the exponent closest to `lhs.exponent - rhs.exponent`
    /// (`1 / 4` is `0.25`, `6 / 2` is `3`); an inexact one has all 34 digits, rounded
    /// half-to-even (`1 / 3` is `0.3333333333333333333333333333333333`). Dividing a non-zero
    /// value by zero gives ±infinity; `0 / 0` and `∞ / ∞` give NaN.
    ///
    /// - Parameters:
    ///   - lhs: The value to divide.
    ///   - rhs: The value to divide by.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { divide(lhs, rhs) }

    /// Adds `rhs` to `lhs` in place; see `+`.
    ///
    /// - Parameters:
    ///   - lhs: The value to update.
    ///   - rhs: The value to add.
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }

    /// Subtracts `rhs` from `lhs` in place; see `-`.
    ///
    /// - Parameters:
    ///   - lhs: The value to update.
    ///   - rhs: The value to subtract.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }

    /// Multiplies `lhs` by `rhs` in place; see `*`.
    ///
    /// - Parameters:
    ///   - lhs: The value to update.
    ///   - rhs: The value to multiply by.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }

    /// Divides `lhs` by `rhs` in place; see `/`.
    ///
    /// - Parameters:
    ///   - lhs: The value to update.
    ///   - rhs: The value to divide by.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// Returns the distance from this value to `other`, that is `other - self`.
    ///
    /// As Realm Swift's `Decimal128.distance(to:)`.
    ///
    /// - Parameter other: The value to measure to.
    /// - Returns: `other - self`, rounded like `-`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// Returns this value offset by `n`, that is `self + n`.
    ///
    /// As Realm Swift's `Decimal128.advanced(by:)`.
    ///
    /// - Parameter n: The distance to advance by.
    /// - Returns: `self + n`, rounded like `+`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }
}

/// `Decimal128` is a `SignedNumeric`, as Realm Swift's is a `Numeric`: generic numeric code
/// (`reduce(.zero, +)`, `abs(_:)`, `*=`) takes it; the operators are above.
extension Decimal128: SignedNumeric {}
