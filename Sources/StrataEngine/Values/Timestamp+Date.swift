import Foundation

extension Timestamp {
    /// Seconds from the Unix epoch (1970) to Foundation's reference date (2001-01-01T00:00:00Z).
    static let referenceDateOffset: Int64 = 978_307_200

    /// The timestamp of `date`, rounded to the nearest nanosecond, clamped to what a timestamp
    /// holds.
    ///
    /// A `Date` holds a `Double` count of seconds since 2001-01-01, so the seconds and
    /// nanoseconds are taken from that count (as Realm Swift does in `RLMTimestampForNSDate`)
    /// before shifting to the Unix epoch: shifting the `Double` first would round away the low
    /// bits. Reading the timestamp back (``date``) gives a `Date` `==` to this one whenever the
    /// date's interval since 2001-01-01 is the `Double` nearest to a whole number of
    /// nanoseconds, or is at least 2^23 seconds (97 days) away, where a `Double` is coarser than
    /// 2 ns; nearer that day a sub-nanosecond part is rounded to the nearest nanosecond. Realm
    /// keeps nanoseconds too (and truncates where this rounds).
    ///
    /// Never traps, whatever the date: a date past the last representable second becomes
    /// ``max`` (`Int64.max` seconds and 999,999,999 nanoseconds), one before the first becomes
    /// ``min`` (`Int64.min` seconds), and a NaN time interval becomes the epoch. Only dates
    /// billions of years away are clamped; `Date.distantPast` and `Date.distantFuture` are
    /// stored exactly.
    ///
    /// - Parameter date: The date to convert.
    package init(_ date: Date) {
        let interval = date.timeIntervalSinceReferenceDate
        guard !interval.isNaN else {
            self = Timestamp(seconds: 0)
            return
        }
        let wholeSeconds = interval.rounded(.down)
        // 2^63 is the first double Int64 cannot hold; -2^63 is exactly Int64.min.
        guard wholeSeconds < 9_223_372_036_854_775_808.0 else {
            self = .max
            return
        }
        guard wholeSeconds >= -9_223_372_036_854_775_808.0 else {
            self = .min
            return
        }
        // Exact: the fractional part of a double is a double.
        var nanoseconds = ((interval - wholeSeconds) * 1e9).rounded()
        var seconds = Int64(wholeSeconds)
        if nanoseconds >= 1e9 {
            // Only for |interval| < 2^53, where adding one second cannot overflow.
            seconds += 1
            nanoseconds -= 1e9
        }
        let (unixSeconds, overflow) = seconds.addingReportingOverflow(Self.referenceDateOffset)
        guard !overflow else {
            self = .max
            return
        }
        self.init(seconds: unixSeconds, nanoseconds: Int32(nanoseconds))
    }

    /// The date this timestamp stands for: the `Date` nearest to it.
    ///
    /// The inverse of ``init(_:)`` for every date it keeps exactly. Within 9,000,000 seconds of
    /// 2001-01-01 the whole count of nanoseconds is exact in a `Double`, so one correctly
    /// rounded division gives the nearest date (and `-0.000000001` reads back as written);
    /// farther away a `Double` is coarser than 2 ns and adding the nanoseconds to the seconds
    /// lands on the date written.
    package var date: Date {
        let (referenceSeconds, overflow) = seconds.subtractingReportingOverflow(Self.referenceDateOffset)
        if !overflow, referenceSeconds.magnitude < 9_000_000 {
            // |total| < 9.001e15 < 2^53: exact as a Double.
            let total = referenceSeconds * 1_000_000_000 + Int64(nanoseconds)
            return Date(timeIntervalSinceReferenceDate: Double(total) / 1e9)
        }
        let wholeSeconds = overflow ? Double(seconds) - Double(Self.referenceDateOffset) : Double(referenceSeconds)
        return Date(timeIntervalSinceReferenceDate: wholeSeconds + Double(nanoseconds) / 1e9)
    }

    /// The latest timestamp: `Int64.max` seconds and 999,999,999 nanoseconds after the epoch.
    package static let max = Timestamp(seconds: .max, nanoseconds: 999_999_999)

    /// The earliest timestamp: `Int64.min` seconds after the epoch.
    package static let min = Timestamp(seconds: .min)
}
