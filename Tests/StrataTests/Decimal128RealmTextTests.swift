import Foundation
import Testing

@testable import Strata

// `description` and `stringValue` print as Realm does: the point absorbs what it can of the
// exponent, trailing zeros of the fraction go, and the rest prints as `E` and the exponent.

@Suite("Decimal128 text as Realm prints it")
struct Decimal128RealmTextTests {
    /// Input text and the text Realm prints for it.
    static let printed: [(String, String)] = [
        ("1.234567", "1.234567"), ("9.876543", "9.876543"), ("11.111110", "11.11111"), ("-1.0", "-1"),
        ("2.5", "2.5"), ("1.50", "1.5"), ("12.50", "12.5"), ("100", "100"), ("0", "0"), ("-0", "-0"),
        ("1E+2", "1E2"), ("1.5E+2", "1.5E2"), ("1.5e2", "1.5E2"), ("0.001", "1E-3"), ("0.0000150", "1.5E-5"),
        ("0.00", "0E-2"), ("123.4500", "123.45"), ("1E+10", "1E10"), ("1.23E-7", "1.23E-7"),
        ("0.5", "5E-1"), ("0.333", "3.33E-1"),
        ("0.3333333333333333333333333333333333", "3.333333333333333333333333333333333E-1"),
        ("Infinity", "Inf"), ("-Infinity", "-Inf"), ("NaN", "NaN"), ("-NaN", "-NaN"), ("sNaN", "NaN"),
    ]

    @Test("description and stringValue print as Realm does", arguments: printed)
    func printsAsRealm(input: String, expected: String) throws {
        let value = try Decimal128(string: input)
        #expect(value.description == expected)
        #expect(value.stringValue == expected)
    }

    @Test("Printed text parses back to an equal value", arguments: printed)
    func printedTextParsesBackEqual(input: String, expected: String) throws {
        let value = try Decimal128(string: input)
        let reparsed = try Decimal128(string: value.stringValue)
        #expect(reparsed == value || (reparsed.isNaN && value.isNaN))
    }

    @Test("Sums and differences print without the zeros their exponent keeps")
    func arithmeticResultsPrintAsRealm() {
        let first: Decimal128 = "1.234567"
        let half: Decimal128 = "2.5"
        #expect((first + "9.876543").description == "11.11111")
        #expect((half - "3.5").description == "-1")
        #expect("\(half + half)" == "5")
    }

    @Test("Decimal128(value: NSNull()) is a NaN, signaling as Realm reports it")
    func nullIsNaN() {
        let value = Decimal128(value: NSNull())
        #expect(value.isNaN)
        #expect(value.isSignaling)
        #expect(value.isSignalingNaN)
        #expect(value != value)
        #expect(value.description == "NaN")
    }
}
