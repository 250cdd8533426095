import Foundation

// MARK: - Strings

extension Decimal128 {
    /// Parses a decimal string such as `"1.5"`, `"-0.001"`, `"1E+10"`, `"1.23e-5"`, `"NaN"` or `"-Infinity"`.
    ///
    /// The accepted syntax is IEEE 754 / the General Decimal Arithmetic numeric string:
    /// an optional `+` or `-`, then digits with at most one `.` (at least one digit in all),
    /// then optionally `e` or `E`, an optional sign and at least one digit. The special values
    /// `Inf`, `Infinity`, `NaN` and `sNaN` are accepted in any letter case, signed, and the NaNs
    /// may carry a payload of up to 33 digits (`"NaN123"`). No whitespace, grouping separators
    /// or hexadecimal is accepted.
    ///
    /// The number keeps the exponent it is written with (`"1.50"` is `150 × 10^-2`). More than
    /// 34 significant digits are rounded half-to-even; a value too large for the format becomes
    /// ±infinity and one too small rounds towards zero, as IEEE 754 conversion does.
    ///
    /// - Parameter string: The text to parse.
    /// - Throws: ``ValueParseError`` if the text is not a number in the syntax above.
    public init(string: String) throws {
        guard let value = Self.parse(string) else {
            throw ValueParseError(input: string, message: "not a valid Decimal128 number")
        }
        self = value
    }

    /// Parses a decimal string, returning `nil` if it is not valid.
    ///
    /// The same as ``init(string:)`` but failable. With a string literal argument,
    /// `Decimal128("1.5")`, Swift picks the literal initializer instead, which is non-optional
    /// and aborts on bad input.
    ///
    /// - Parameter string: The text to parse.
    public init?(_ string: String) {
        guard let value = Self.parse(string) else { return nil }
        self = value
    }

    /// Collects significant digits: 36 of them exactly, and whether any later digit is non-zero.
    struct DigitAccumulator {
        static let keptDigits = 36
        var coefficient: UInt128 = 0
        var kept = 0
        /// Power of ten to apply to `coefficient` for the digits consumed so far.
        var exponentAdjustment = 0
        var sticky = false

        mutating func append(_ digit: UInt8, fractional: Bool) {
            if kept < Self.keptDigits {
                if coefficient == 0 && digit == 0 {
                    if fractional { exponentAdjustment -= 1 }  // a leading zero
                    return
                }
                coefficient = coefficient * 10 + UInt128(digit)
                kept += 1
                if fractional { exponentAdjustment -= 1 }
            } else {
                sticky = sticky || digit != 0
                if !fractional { exponentAdjustment += 1 }
            }
        }
    }

    static func parse(_ text: String) -> Decimal128? {
        let bytes = Array(text.utf8)
        var index = 0
        var negative = false
        if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        let body = bytes[index...]
        guard let first = body.first else { return nil }
        if !isDigit(first) && first != UInt8(ascii: ".") {
            return parseSpecial(String(decoding: body, as: UTF8.self), negative: negative)
        }
        var digits = DigitAccumulator()
        var sawDigit = false
        var sawPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if isDigit(byte) {
                digits.append(byte &- UInt8(ascii: "0"), fractional: sawPoint)
                sawDigit = true
            } else if byte == UInt8(ascii: ".") && !sawPoint {
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else { return nil }
            index += 1
            var exponentNegative = false
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count else { return nil }
            while index < bytes.count {
                guard isDigit(bytes[index]) else { return nil }
                // Saturate: anything beyond a million is already far outside the format.
                exponent = Swift.min(exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")), 1_000_000)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        return rounded(
            negative: negative, coefficient: Wide(digits.coefficient),
            exponent: exponent + digits.exponentAdjustment, sticky: digits.sticky)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Parses `inf`, `infinity`, `nan[payload]` or `snan[payload]` (any case, sign already read).
    private static func parseSpecial(_ text: String, negative: Bool) -> Decimal128? {
        let lower = text.lowercased()
        if lower == "inf" || lower == "infinity" {
            return negative ? -infinity : infinity
        }
        let signaling = lower.hasPrefix("snan")
        guard signaling || lower.hasPrefix("nan") else { return nil }
        let payloadText = lower.dropFirst(signaling ? 4 : 3)
        var payload: UInt128 = 0
        if !payloadText.isEmpty {
            guard payloadText.count <= 33, payloadText.utf8.allSatisfy(isDigit), let value = UInt128(payloadText) else {
                return nil
            }
            payload = value
        }
        let high = (negative ? signMask : 0) | nanMask | (signaling ? signalingBit : 0) | UInt64(payload >> 64)
        return Decimal128(bid: (low: UInt64(truncatingIfNeeded: payload), high: high))
    }
}

// MARK: - Integers

extension Decimal128 {
    /// Creates a value equal to the given integer, with exponent 0.
    ///
    /// Always exact.
    ///
    /// - Parameter int: The integer to convert.
    public init(_ int: Int) {
        self.init(negative: int < 0, coefficient: UInt128(int.magnitude), exponent: 0)
    }

    /// Creates a value from any integer, rounding half-to-even if it has more than 34 digits.
    ///
    /// Integers of up to 34 digits (every `Int64` and `UInt64`) convert exactly with exponent 0.
    ///
    /// - Parameter value: The integer to convert.
    public init<T: BinaryInteger>(_ value: T) {
        if let magnitude = UInt128(exactly: value.magnitude) {
            self = Self.rounded(negative: value < 0, coefficient: Wide(magnitude), exponent: 0, sticky: false)
        } else {
            self = Self.parse(String(value))!
        }
    }

    /// Creates a value equal to the given integer, or `nil` if it needs more than 34 significant digits.
    ///
    /// As Realm Swift's `Decimal128(exactly:)`. Trailing zeros do not count, so `10^40` converts
    /// (as `1E+40`) while `10^40 + 1` does not.
    ///
    /// - Parameter source: The integer to convert.
    public init?<T: BinaryInteger>(exactly source: T) {
        var digits = String(source.magnitude)
        while digits.count > 1 && digits.hasSuffix("0") { digits.removeLast() }
        guard digits.count <= Self.precision else { return nil }
        self.init(source)
    }
}

// MARK: - Binary floating point

extension Decimal128 {
    /// Creates a value from a `Double`, rounded to 15 significant digits as Realm does.
    ///
    /// A `Double` holds about 15.95 decimal digits, so its exact binary value (for `0.1`,
    /// `0.1000000000000000055511151231257827…`) is rounded half-to-even to 15 significant
    /// digits, which gives the decimal the literal was written as (`0.1`). Realm Core and
    /// MongoDB convert the same way. Trailing zeros are then removed from the fraction, and an
    /// integral result is given exponent 0 when it fits in 34 digits, so `Decimal128(100.0)` is
    /// `100` and `Decimal128(1e20)` is `100000000000000000000`. NaN and the infinities map to
    /// their decimal counterparts; `-0.0` becomes `-0`.
    ///
    /// - Parameter double: The number to convert.
    public init(_ double: Double) {
        self = Self.converting(double, significantDigits: 15)
    }

    /// Creates a value from a `Float`, rounded to 7 significant digits.
    ///
    /// The same conversion as for `Double` but to the 7 digits a `Float` holds, so
    /// `Decimal128(Float(0.1))` is `0.1` (Realm Core's `RoundTo7Digits`).
    ///
    /// - Parameter float: The number to convert.
    public init(_ float: Float) {
        self = Self.converting(Double(float), significantDigits: 7)
    }

    private static func converting(_ double: Double, significantDigits: Int) -> Decimal128 {
        if double.isNaN { return double.sign == .minus ? -nan : nan }
        if double.isInfinite { return double.sign == .minus ? -infinity : infinity }
        let negative = double.sign == .minus
        if double == 0 { return zero(negative: negative, exponent: 0) }
        // double = significand × 2^binaryExponent exactly.
        let biasedExponent = Int(double.exponentBitPattern)
        var significand = double.significandBitPattern
        var binaryExponent = -1074
        if biasedExponent != 0 {
            significand |= 1 << 52
            binaryExponent = biasedExponent - 1075
        }
        // Exact decimal digits: significand × 2^e, or (significand × 5^-e) × 10^e for e < 0.
        var number = BigDigits(significand)
        var decimalExponent = 0
        if binaryExponent >= 0 {
            number.multiply(byPowerOf: 2, count: binaryExponent)
        } else {
            number.multiply(byPowerOf: 5, count: -binaryExponent)
            decimalExponent = binaryExponent
        }
        var digits = DigitAccumulator()
        for digit in number.decimalDigits() { digits.append(digit, fractional: false) }
        let value = rounded(
            negative: negative, coefficient: Wide(digits.coefficient),
            exponent: decimalExponent + digits.exponentAdjustment, sticky: digits.sticky,
            precision: significantDigits)
        var parts = value.parts
        guard parts.kind == .finite, parts.coefficient != 0 else { return value }
        if parts.exponent < 0 {
            while parts.exponent < 0 && parts.coefficient % 10 == 0 {
                parts.coefficient /= 10
                parts.exponent += 1
            }
        } else if parts.exponent > 0 {
            if digitCount(parts.coefficient) + parts.exponent <= precision {
                parts.coefficient *= powersOfTen[parts.exponent]
                parts.exponent = 0
            } else {
                while parts.coefficient % 10 == 0 {
                    parts.coefficient /= 10
                    parts.exponent += 1
                }
            }
        }
        return Decimal128(negative: negative, coefficient: parts.coefficient, exponent: parts.exponent)
    }

    /// A small unsigned big integer (base 2^32 limbs, least significant first) for exact
    /// binary-to-decimal conversion of a `Double`.
    struct BigDigits {
        var limbs: [UInt32]

        init(_ value: UInt64) {
            limbs = [UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32)]
        }

        mutating func multiply(by factor: UInt32) {
            var carry: UInt64 = 0
            for i in limbs.indices {
                let product = UInt64(limbs[i]) * UInt64(factor) + carry
                limbs[i] = UInt32(truncatingIfNeeded: product)
                carry = product >> 32
            }
            if carry != 0 { limbs.append(UInt32(carry)) }
        }

        /// Multiplies by `base^count` for base 2 or 5, in chunks that fit in 32 bits.
        mutating func multiply(byPowerOf base: UInt32, count: Int) {
            let chunkCount = base == 2 ? 31 : 13  // 2^31 and 5^13 fit in a UInt32
            var remaining = count
            while remaining > 0 {
                let step = Swift.min(remaining, chunkCount)
                var factor: UInt32 = 1
                for _ in 0..<step { factor *= base }
                multiply(by: factor)
                remaining -= step
            }
        }

        /// The decimal digits, most significant first.
        func decimalDigits() -> [UInt8] {
            var value = limbs
            var chunks: [UInt32] = []  // base 10^9, least significant first
            while value.contains(where: { $0 != 0 }) {
                var remainder: UInt64 = 0
                for i in value.indices.reversed() {
                    let current = remainder << 32 | UInt64(value[i])
                    value[i] = UInt32(current / 1_000_000_000)
                    remainder = current % 1_000_000_000
                }
                chunks.append(UInt32(remainder))
                while value.last == 0 { value.removeLast() }
            }
            var digits: [UInt8] = []
            for (position, chunk) in chunks.reversed().enumerated() {
                var chunkDigits = Array(String(chunk).utf8).map { $0 - UInt8(ascii: "0") }
                if position > 0 {
                    chunkDigits.insert(contentsOf: repeatElement(0, count: 9 - chunkDigits.count), at: 0)
                }
                digits += chunkDigits
            }
            return digits
        }
    }
}

// MARK: - Foundation numbers and untyped values

extension Decimal128 {
    /// Creates a value from a Foundation `Decimal`, via its decimal text; exact.
    ///
    /// `Decimal` holds at most 38 digits, so values with more than 34 are rounded half-to-even;
    /// `Decimal.nan` becomes NaN.
    ///
    /// - Parameter decimal: The number to convert.
    public init(_ decimal: Decimal) {
        if decimal.isNaN {
            self = .nan
        } else {
            self = Self.parse(decimal.description) ?? .nan
        }
    }

    /// Converts an `NSNumber`, as Realm's `Decimal128(number:)`.
    ///
    /// Integer and Boolean numbers convert exactly; `double` and `float` numbers convert as
    /// `Decimal128(Double)` and `Decimal128(Float)` do (15 and 7 significant digits).
    ///
    /// - Parameter number: The number to convert.
    public init(number: NSNumber) {
        switch String(cString: number.objCType) {
        case "d": self.init(number.doubleValue)
        case "f": self.init(number.floatValue)
        case "Q", "L", "I", "S", "C": self.init(number.uint64Value)
        default: self.init(number.int64Value)
        }
    }

    /// Converts a value of one of the supported types, as Realm Swift's `Decimal128(value:)`.
    ///
    /// Accepted: `Decimal128`, any `BinaryInteger`, `Double`, `Float`, `String` or `Substring`
    /// (parsed as ``init(string:)``), `Decimal` and `NSNumber`; `NSNull` gives a NaN (a
    /// signaling one, so ``isNaN``, ``isSignaling`` and ``isSignalingNaN`` all hold, as Realm
    /// Swift answers for it). Passing any other type, or a string that does not parse, is a
    /// programmer error and aborts, as in Realm Swift.
    ///
    /// - Parameter value: The value to convert.
    public init(value: Any) {
        switch value {
        case let decimal as Decimal128: self = decimal
        case is NSNull: self.init(bid: (low: 0, high: Self.nanMask | Self.signalingBit))
        case let int as Int: self.init(int)
        case let integer as any BinaryInteger: self.init(integer)
        case let double as Double: self.init(double)
        case let float as Float: self.init(float)
        case let string as String: self.init(stringLiteral: string)
        case let substring as Substring: self.init(stringLiteral: String(substring))
        case let decimal as Decimal: self.init(decimal)
        case let number as NSNumber: self.init(number: number)
        default: preconditionFailure("Cannot convert a value of type \(type(of: value)) to Decimal128")
        }
    }
}
