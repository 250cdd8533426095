import StrataEngine

/// Numbers, timestamps and strings.
extension Lexer {
    /// An integer (`42`, `-7`, `0x1F`) → `.int`; a decimal or exponent (`1.5`, `-2e3`, `.5`) →
    /// `.double`; or a date (`2024-01-31@12:00:00`) → `.timestamp`.
    mutating func scanNumber() throws(QueryError) {
        let start = index
        let negative = scalars[index] == "-"
        if negative { index += 1 }
        if scalars[index] == "0", let x = peek(index + 1), x == "x" || x == "X", peek(index + 2)?.hexValue != nil {
            return try scanHexNumber(negative: negative, start: start)
        }
        if try scanDate(negative: negative, start: start) { return }
        let digitsStart = index
        while peek(index)?.isDigit == true { index += 1 }
        var isInteger = true
        if peek(index) == ".", peek(index + 1)?.isDigit == true {
            isInteger = false
            index += 1
            while peek(index)?.isDigit == true { index += 1 }
        }
        if let e = peek(index), e == "e" || e == "E" {
            var digit = index + 1
            if let sign = peek(digit), sign == "+" || sign == "-" { digit += 1 }
            guard peek(digit)?.isDigit == true else {
                throw QueryError(position: start, problem: "invalid number: expected digits after the exponent '\(e)'")
            }
            isInteger = false
            index = digit
            while peek(index)?.isDigit == true { index += 1 }
        }
        if let next = peek(index), next.isIdentifierContinue || next == "." {
            throw QueryError(position: start, problem: "invalid number: unexpected \(describeScalar(at: index)) after '\(excerpt(start..<index))'")
        }
        let literal = (negative ? "-" : "") + (digitsStart == index || scalars[digitsStart] == "." ? "0" : "")
            + text(digitsStart..<index)
        if isInteger {
            guard let value = Int64(literal) else {
                throw QueryError(position: start, problem: "integer '\(excerpt(start..<index))' does not fit in 64 bits")
            }
            append(.literal(.int(value)), from: start)
        } else {
            guard let value = Double(literal), value.isFinite else {
                throw QueryError(position: start, problem: "number '\(excerpt(start..<index))' is out of range")
            }
            append(.literal(.double(value)), from: start)
        }
    }

    /// The text of `range`.
    func text(_ range: Range<Int>) -> String {
        String(String.UnicodeScalarView(scalars[range]))
    }

    /// The text of `range` for an error message: at most 40 scalars.
    func excerpt(_ range: Range<Int>) -> String {
        range.count <= 40 ? text(range) : text(range.lowerBound..<range.lowerBound + 40) + "…"
    }

    private mutating func scanHexNumber(negative: Bool, start: Int) throws(QueryError) {
        index += 2
        var magnitude: UInt64 = 0
        while let digit = peek(index)?.hexValue {
            guard magnitude <= UInt64.max >> 4 else {
                throw QueryError(position: start, problem: "integer '\(excerpt(start..<index))…' does not fit in 64 bits")
            }
            magnitude = magnitude << 4 | UInt64(digit)
            index += 1
        }
        if let next = peek(index), next.isIdentifierContinue || next == "." {
            throw QueryError(position: start, problem: "invalid number: unexpected \(describeScalar(at: index)) after '\(excerpt(start..<index))'")
        }
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard magnitude <= limit else {
            throw QueryError(position: start, problem: "integer '\(excerpt(start..<index))' does not fit in 64 bits")
        }
        let value = negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
        append(.literal(.int(value)), from: start)
    }

    /// Reads up to `maxDigits` decimal digits at `offset`: their value and where they end, or nil
    /// if there are none or too many.
    func digitRun(at offset: Int, maxDigits: Int) -> (value: Int64, end: Int)? {
        var end = offset
        var value: Int64 = 0
        while let digit = peek(end), digit.isDigit {
            guard end - offset < maxDigits else { return nil }
            value = value * 10 + Int64(digit.value - 48)
            end += 1
        }
        return end > offset ? (value, end) : nil
    }

    /// `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (or `T` for `@`), UTC. Returns false, reading nothing,
    /// if the text at `index` does not start with `digits-digits-digits`.
    private mutating func scanDate(negative: Bool, start: Int) throws(QueryError) -> Bool {
        var cursor = index
        while peek(cursor)?.isDigit == true { cursor += 1 }
        guard peek(cursor) == "-", peek(cursor + 1)?.isDigit == true else { return false }
        cursor += 1
        while peek(cursor)?.isDigit == true { cursor += 1 }
        guard peek(cursor) == "-", peek(cursor + 1)?.isDigit == true else { return false }

        let invalid = QueryError(position: start, problem: "invalid timestamp: expected YYYY-MM-DD@HH:MM:SS[:nanoseconds]")
        var fields: [Int64] = []
        cursor = index
        for separator in ["-", "-", "@", ":", ":", nil] as [Unicode.Scalar?] {
            guard let run = digitRun(at: cursor, maxDigits: fields.isEmpty ? 9 : 2) else { throw invalid }
            fields.append(run.value)
            cursor = run.end
            guard let separator else { break }
            guard let next = peek(cursor), next == separator || (separator == "@" && next == "T") else { throw invalid }
            cursor += 1
        }
        var nanoseconds: Int64 = 0
        if peek(cursor) == ":" {
            guard let run = digitRun(at: cursor + 1, maxDigits: 9) else { throw invalid }
            nanoseconds = run.value
            cursor = run.end
        }
        if let next = peek(cursor), next.isIdentifierContinue || next == "." || next == ":" { throw invalid }
        let year = negative ? -fields[0] : fields[0]
        let (month, day, hour, minute, second) = (fields[1], fields[2], fields[3], fields[4], fields[5])
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else {
            throw QueryError(position: start, problem: "invalid timestamp: a field is out of range")
        }
        index = cursor
        let seconds = Self.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        append(.literal(.timestamp(Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds)))), from: start)
        return true
    }

    /// `T<seconds>:<nanoseconds>` (both may be negative, with the same sign). Returns false,
    /// reading nothing, if the text at `index` is not `T`, digits and `:`.
    mutating func scanSecondsTimestamp() throws(QueryError) -> Bool {
        let start = index
        var cursor = index + 1
        let negativeSeconds = peek(cursor) == "-"
        if negativeSeconds { cursor += 1 }
        guard peek(cursor)?.isDigit == true else { return false }
        var end = cursor
        while peek(end)?.isDigit == true { end += 1 }
        guard peek(end) == ":" else { return false }
        guard let magnitude = Int64(text(cursor..<end)) else {
            throw QueryError(position: start, problem: "timestamp seconds do not fit in 64 bits")
        }
        cursor = end + 1
        let negativeNanoseconds = peek(cursor) == "-"
        if negativeNanoseconds { cursor += 1 }
        guard let nanos = digitRun(at: cursor, maxDigits: 9),
              peek(nanos.end).map({ !$0.isIdentifierContinue && $0 != "." && $0 != ":" }) ?? true else {
            throw QueryError(position: start, problem: "invalid timestamp: expected T<seconds>:<nanoseconds> with at most 9 digits of nanoseconds")
        }
        var seconds = negativeSeconds ? -magnitude : magnitude
        var nanoseconds = negativeNanoseconds ? -nanos.value : nanos.value
        guard !(seconds > 0 && nanoseconds < 0) && !(seconds < 0 && nanoseconds > 0) else {
            throw QueryError(position: start, problem: "invalid timestamp: seconds and nanoseconds must have the same sign")
        }
        if nanoseconds < 0 {
            seconds -= 1 // Cannot overflow: `seconds` ≤ 0 and came from a negated Int64.
            nanoseconds += 1_000_000_000
        }
        index = nanos.end
        append(.literal(.timestamp(Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds)))), from: start)
        return true
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// A string in single or double quotes with backslash escapes; `index` is at the quote.
    mutating func scanString() throws(QueryError) -> String {
        let start = index
        let quote = scalars[index]
        index += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = peek(index) else {
                throw QueryError(position: start, problem: "unterminated string literal")
            }
            if scalar == quote {
                index += 1
                return String(text)
            }
            if scalar == "\\" {
                text.append(try scanEscape(stringStart: start))
            } else {
                text.append(scalar)
                index += 1
            }
        }
    }

    /// `\n` `\t` `\r` `\b` `\f` `\0` `\\` `\'` `\"` `\/` `\uXXXX` (surrogate pairs combined).
    private mutating func scanEscape(stringStart: Int) throws(QueryError) -> Unicode.Scalar {
        let start = index
        guard let code = peek(index + 1) else {
            throw QueryError(position: stringStart, problem: "unterminated string literal")
        }
        index += 2
        switch code {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "b": return "\u{8}"
        case "f": return "\u{C}"
        case "0": return "\0"
        case "\\", "'", "\"", "/": return code
        case "u":
            let unit = try scanHex4(escapeStart: start)
            if (0xD800..<0xDC00).contains(unit), peek(index) == "\\", peek(index + 1) == "u" {
                let lowStart = index
                index += 2
                let low = try scanHex4(escapeStart: lowStart)
                if (0xDC00..<0xE000).contains(low),
                   let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) {
                    return scalar
                }
            }
            guard let scalar = Unicode.Scalar(unit) else {
                throw QueryError(position: start, problem: "invalid escape sequence: '\\u\(String(unit, radix: 16, uppercase: true))' is an unpaired surrogate")
            }
            return scalar
        default:
            throw QueryError(position: start, problem: "invalid escape sequence '\\\(code.escaped(asASCII: false))'")
        }
    }

    private mutating func scanHex4(escapeStart: Int) throws(QueryError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = peek(index)?.hexValue else {
                throw QueryError(position: escapeStart, problem: "invalid escape sequence: expected 4 hexadecimal digits after '\\u'")
            }
            unit = unit << 4 | UInt32(digit)
            index += 1
        }
        return unit
    }
}
