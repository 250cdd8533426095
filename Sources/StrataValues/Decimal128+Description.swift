import Foundation

extension Decimal128: CustomStringConvertible {
    /// The value as text, as Realm prints it: the digits with as few trailing zeros as the value
    /// needs.
    ///
    /// A finite value with coefficient digits `c` and exponent `e` prints its digits with the
    /// point moved left by up to `-e` places, never past the first digit; what the point could
    /// not absorb prints as `E` and the exponent, and zeros at the end of the fraction are
    /// dropped (with the point when nothing follows it): `11.11111` for `11.111110`, `-1` for
    /// `-1.0`, `1.5` for `1.50`, `150` for `150`, `1.5E2` for `1.5E+2`, `5E-1` for `0.5`,
    /// `1E-3` for `0.001`, `1.5E-5` for `0.0000150`. Infinities print as `Inf` and `-Inf`, NaNs as `NaN` (`-NaN`
    /// when the sign bit is set).
    ///
    /// The text parses back with ``init(string:)`` to an equal value, not always to the same
    /// bits: `1.50` and `1.5` are equal but keep different exponents. For the exact
    /// IEEE 754 to-scientific-string text (`1.50`, `1.5E+2`), use ``scientificString``.
    ///
    /// Realm prints a coefficient of more than 64 bits (above 18,446,744,073,709,551,615) in
    /// its decimal library's raw form (`+3333333333333333333333333333333333E-34`); Strata prints
    /// it the same way as any other (`3.333333333333333333333333333333333E-1`).
    public var stringValue: String {
        let p = parts
        let sign = p.negative ? "-" : ""
        switch p.kind {
        case .infinity: return sign + "Inf"
        case .quietNaN, .signalingNaN: return sign + "NaN"
        case .finite: break
        }
        let digits = String(p.coefficient)
        // The point moves left while there are digits before it and exponent to absorb; a
        // positive exponent grows as it moves (`15E1` is `1.5E2`).
        let moves = p.exponent > 0 ? digits.count - 1 : Swift.min(digits.count - 1, -p.exponent)
        let exponent = p.exponent + moves
        let point = digits.index(digits.endIndex, offsetBy: -moves)
        var fraction = digits[point...]
        while fraction.last == "0" { fraction = fraction.dropLast() }
        var text = sign + digits[..<point]
        if !fraction.isEmpty { text += "." + fraction }
        if exponent != 0 { text += "E" + String(exponent) }
        return text
    }

    /// The same as ``stringValue``, as in Realm Swift.
    ///
    /// `print(Decimal128("1.50"))` prints `1.5`.
    public var description: String { stringValue }

    /// The value as text using IEEE 754's "to-scientific-string" rule, which keeps the exponent.
    ///
    /// A finite value with coefficient digits `c` and exponent `e` prints in plain notation when
    /// `e <= 0` and its adjusted exponent (`e + digits - 1`, the power of ten of the leading
    /// digit) is at least `-6`: `1.5`, `-0.001`, `0.0000123`, `100`, `1.00`. Otherwise it prints
    /// one digit, the rest after a point, and `E` with a signed adjusted exponent: `1E+10`,
    /// `1.23E-7`, `1.5E+3`. The exponent is never lost, so parsing the text with
    /// ``init(string:)`` gives back exactly the same bits (`1.0` stays `1.0`, `1E+2` stays
    /// `1E+2`). Special values print as `Infinity`, `-Infinity`, `NaN`, `-NaN` and `sNaN`, with any
    /// NaN payload appended (`NaN12`).
    ///
    /// Realm Swift has no such property; its ``stringValue`` drops trailing zeros.
    public var scientificString: String {
        let p = parts
        let sign = p.negative ? "-" : ""
        switch p.kind {
        case .infinity:
            return sign + "Infinity"
        case .quietNaN, .signalingNaN:
            let payload = p.coefficient == 0 ? "" : String(p.coefficient)
            return sign + (p.kind == .signalingNaN ? "sNaN" : "NaN") + payload
        case .finite:
            break
        }
        let digits = String(p.coefficient)
        let adjusted = p.exponent + digits.count - 1
        if p.exponent <= 0 && adjusted >= -6 {
            if p.exponent == 0 { return sign + digits }
            let fractionLength = -p.exponent
            if digits.count > fractionLength {
                let point = digits.index(digits.endIndex, offsetBy: -fractionLength)
                return sign + digits[..<point] + "." + digits[point...]
            }
            return sign + "0." + String(repeating: "0", count: fractionLength - digits.count) + digits
        }
        var text = sign + String(digits.prefix(1))
        if digits.count > 1 { text += "." + digits.dropFirst() }
        return text + "E" + (adjusted >= 0 ? "+" : "-") + String(adjusted.magnitude)
    }

    /// The nearest `Double`; a lossy conversion.
    ///
    /// Rounds the exact decimal value to the nearest binary double (ties to even). Values beyond
    /// `Double`'s range become ±infinity or ±0; NaNs become `Double.nan` and infinities become
    /// the `Double` infinities.
    public var doubleValue: Double {
        let p = parts
        switch p.kind {
        case .infinity: return p.negative ? -.infinity : .infinity
        case .quietNaN, .signalingNaN: return p.negative ? -.nan : .nan
        case .finite:
            if p.coefficient == 0 { return p.negative ? -0.0 : 0.0 }
            // strtod on "<coefficient>E<exponent>" rounds correctly.
            return Double((p.negative ? "-" : "") + String(p.coefficient) + "E" + String(p.exponent)) ?? .nan
        }
    }

    /// The value as a Foundation `Decimal`; may be lossy.
    ///
    /// `Decimal` keeps 38 digits but only exponents `-128...127`, so finite values outside
    /// that range, NaNs and infinities (which `Decimal` lacks) become `Decimal.nan`.
    public var decimalValue: Decimal {
        guard isFinite else { return .nan }
        let p = parts
        if p.coefficient == 0 { return Decimal(0) }
        let adjusted = p.exponent + Self.digitCount(p.coefficient) - 1
        guard (-128 - 38)...127 ~= adjusted else { return .nan }
        let text = (p.negative ? "-" : "") + String(p.coefficient) + "E" + String(p.exponent)
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }
}
