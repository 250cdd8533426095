import StrataEngine

/// The payloads of `oid(…)`, `uuid(…)` and `B64"…"`.
extension Lexer {
    /// 24 hexadecimal digits.
    static func objectId(_ text: String, at position: Int) throws(QueryError) -> ObjectIdBits {
        let digits = Array(text.unicodeScalars)
        guard digits.count == 24, let head = hexValue(digits[0..<16]), let tail = hexValue(digits[16..<24]) else {
            throw QueryError(position: position, problem: "invalid ObjectId '\(shortened(text))': expected 24 hexadecimal digits")
        }
        return ObjectIdBits(head: head, tail: UInt32(tail))
    }

    /// 8-4-4-4-12 hexadecimal digits.
    static func uuid(_ text: String, at position: Int) throws(QueryError) -> UUIDBits {
        let scalars = Array(text.unicodeScalars)
        let hyphens = [8, 13, 18, 23]
        guard scalars.count == 36, hyphens.allSatisfy({ scalars[$0] == "-" }) else {
            throw QueryError(position: position, problem: "invalid UUID '\(shortened(text))': expected 8-4-4-4-12 hexadecimal digits")
        }
        let digits = scalars.filter { $0 != "-" }
        guard digits.count == 32, let high = hexValue(digits[0..<16]), let low = hexValue(digits[16..<32]) else {
            throw QueryError(position: position, problem: "invalid UUID '\(shortened(text))': expected 8-4-4-4-12 hexadecimal digits")
        }
        return UUIDBits(high: high, low: low)
    }

    /// `text` cut to 40 scalars for an error message.
    private static func shortened(_ text: String) -> String {
        text.unicodeScalars.count <= 40 ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(40))) + "…"
    }

    /// The value of up to 16 hexadecimal digits, or nil if one is not a hexadecimal digit.
    private static func hexValue(_ digits: ArraySlice<Unicode.Scalar>) -> UInt64? {
        var value: UInt64 = 0
        for scalar in digits {
            guard let digit = scalar.hexValue else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// Standard base64 (`+/`), padding optional; nil if malformed.
    static func base64Decoded(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var symbols = 0
        var padding = 0
        for scalar in text.unicodeScalars {
            if scalar == "=" {
                padding += 1
                continue
            }
            guard padding == 0, let sextet = base64Value(scalar) else { return nil }
            buffer = (buffer << 6 | sextet) & 0xFFFF
            bits += 6
            symbols += 1
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        guard symbols % 4 != 1, padding <= 2, padding == 0 || (symbols + padding) % 4 == 0 else { return nil }
        return bytes
    }

    private static func base64Value(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "A"..."Z": scalar.value - 65
        case "a"..."z": scalar.value - 71
        case "0"..."9": scalar.value + 4
        case "+": 62
        case "/": 63
        default: nil
        }
    }
}
