import Foundation

extension Timestamp {
    /// The timestamp of `date`, to the nanosecond, clamped to what a timestamp holds.
    ///
    /// Never traps, whatever the date (Realm Swift converts the same way, in
    /// `RLMTimestampForNSDate`): a date past the last representable second becomes
    /// ``max`` (`Int64.max` seconds and 999,999,999 nanoseconds), one before the first becomes
    /// ``min`` (`Int64.min` seconds), and a NaN time interval becomes the epoch. Only dates
    /// billions of years away are clamped; `Date.distantPast` and `Date.distantFuture` are
    /// stored exactly.
    ///
    /// - Parameter date: The date to convert.
    package init(_ date: Date) {
        let interval = date.timeIntervalSince1970
        guard !interval.isNaN else {
            self = Timestamp(seconds: 0)
            return
        }
        var seconds = interval.rounded(.down)
        // 2^63 is the first double Int64 cannot hold; -2^63 is exactly Int64.min.
        guard seconds < 9_223_372_036_854_775_808.0 else {
            self = .max
            return
        }
        guard seconds >= -9_223_372_036_854_775_808.0 else {
            self = .min
            return
        }
        var nanoseconds = ((interval - seconds) * 1e9).rounded()
        if nanoseconds >= 1e9 {
            // Only for |interval| < 2^53, where adding one second cannot reach 2^63.
            seconds += 1
            nanoseconds -= 1e9
        }
        self.init(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds))
    }

    /// The latest timestamp: `Int64.max` seconds and 999,999,999 nanoseconds after the epoch.
    package static let max = Timestamp(seconds: .max, nanoseconds: 999_999_999)

    /// The earliest timestamp: `Int64.min` seconds after the epoch.
    package static let min = Timestamp(seconds: .min)
}
