import StrataEngine

/// Timestamps as ISO 8601 text in UTC (`2024-05-01T12:30:00.123Z`), written and read without
/// `Calendar` or a date formatter: events print them, and the `strata` tool exports and imports
/// them. Years before 1 and after 9999 are outside the format and are not written or read.
enum TimestampText {
    /// `YYYY-MM-DDTHH:MM:SS.fffZ` with `fractionDigits` digits of the second (3 for
    /// milliseconds, 9 for every nanosecond; trailing zeros kept), or none when 0.
    static func iso8601(_ timestamp: Timestamp, fractionDigits: Int) -> String {
        let seconds = timestamp.seconds
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        func padded(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(secondOfDay / 3_600, 2)):"
            + "\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2))"
        if fractionDigits > 0 {
            let digits = min(fractionDigits, 9)
            var fraction = Int(timestamp.nanoseconds)
            for _ in digits..<9 { fraction /= 10 }
            text += "." + padded(fraction, digits)
        }
        return text + "Z"
    }

    /// The timestamp of `YYYY-MM-DDTHH:MM:SS[.f…]` followed by `Z` or an offset (`+02:00`), or
    /// nil when `text` is not that (or names a day that does not exist).
    static func parse(_ text: String) -> Timestamp? {
        let scalars = Array(text.unicodeScalars)
        var position = 0
        func digit(at index: Int) -> Int? {
            guard index < scalars.count, (48...57).contains(scalars[index].value) else { return nil }
            return Int(scalars[index].value - 48)
        }
        func number(_ width: Int) -> Int? {
            var value = 0
            for index in position..<position + width {
                guard let digit = digit(at: index) else { return nil }
                value = value * 10 + digit
            }
            position += width
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard position < scalars.count, Character(scalars[position]) == character else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("T") || expect(" "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
              let second = number(2), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        var nanoseconds = 0
        if expect(".") {
            var digits = 0
            while let digit = digit(at: position) {
                if digits < 9 { nanoseconds = nanoseconds * 10 + digit }
                digits += 1
                position += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 9)..<9 { nanoseconds *= 10 }
        }
        var offset = 0
        if expect("Z") {
            offset = 0
        } else if position < scalars.count, scalars[position] == "+" || scalars[position] == "-" {
            let sign = scalars[position] == "-" ? -1 : 1
            position += 1
            guard let hours = number(2), expect(":"), let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3_600 + minutes * 60)
        } else {
            return nil
        }
        guard position == scalars.count else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3_600 + minute * 60 + second - offset)
        return Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds))
    }

    /// Year, month and day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), month, day)
    }

    /// Days since 1970-01-01 of a civil date (the inverse of ``civilDate(daysSinceEpoch:)``).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let year = Int64(month <= 2 ? year - 1 : year)
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
