@testable import Strata
import StrataEngine
import Testing

@Suite("ISO 8601 timestamps (events, and the strata tool's export and import)")
struct TimestampTextTests {
    @Test("written with 3 or 9 fraction digits and read back to the nanosecond, before 1970 too")
    func roundTrip() {
        for seconds: Int64 in [0, 1, 1_000_000_000, -1, -86_401, 253_402_300_799, -62_135_596_800] {
            for nanoseconds: Int32 in [0, 1, 123_456_789, 999_999_999] {
                let time = Timestamp(seconds: seconds, nanoseconds: nanoseconds)
                let text = TimestampText.iso8601(time, fractionDigits: 9)
                #expect(TimestampText.parse(text) == time, "\(text)")
            }
        }
        #expect(TimestampText.iso8601(Timestamp(seconds: 1_000_000_000, nanoseconds: 123_456_789), fractionDigits: 3)
                == "2001-09-09T01:46:40.123Z")
        #expect(TimestampText.iso8601(Timestamp(seconds: -1), fractionDigits: 0) == "1969-12-31T23:59:59Z")
    }

    @Test("offsets and a space separator are read; days that do not exist and other text are not")
    func parsing() {
        #expect(TimestampText.parse("2024-02-29T12:00:00+02:00") == Timestamp(seconds: 1_709_200_800))
        #expect(TimestampText.parse("2024-02-29 10:00:00Z") == Timestamp(seconds: 1_709_200_800))
        #expect(TimestampText.parse("2024-02-29T10:00:00.5Z") == Timestamp(seconds: 1_709_200_800, nanoseconds: 500_000_000))
        for bad in ["2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00",
                    "2024-01-01T00:00:00.Z", "2024-01-01", "yesterday", "2024-01-01T00:00:00Zjunk", "٢٠٢٤-01-01T00:00:00Z"] {
            #expect(TimestampText.parse(bad) == nil, "\(bad)")
        }
    }
}
