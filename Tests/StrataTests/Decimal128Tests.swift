import Foundation
import Testing

@testable import Strata

@Suite("Decimal128")
struct Decimal128Tests {
    // MARK: - Parsing and printing

    /// Input text and the to-scientific-string text it prints as.
    static let printed: [(String, String)] = [
        ("1.5", "1.5"), ("-0.001", "-0.001"), ("1E+10", "1E+10"), ("1e10", "1E+10"),
        ("1.23e-5", "0.0000123"), ("1.23E-7", "1.23E-7"), ("100", "100"), ("1.00", "1.00"),
        ("0", "0"), ("-0", "-0"), ("0.000", "0.000"), ("+7", "7"), (".5", "0.5"), ("5.", "5"),
        ("12.3E+2", "1.23E+3"), ("0.00000012345", "1.2345E-7"), ("0.0000012345", "0.0000012345"),
        ("000123.4500", "123.4500"), ("-1E-3", "-0.001"), ("1E+0", "1"), ("10E-1", "1.0"),
        ("1234567890123456789012345678901234", "1234567890123456789012345678901234"),
        ("9.999999999999999999999999999999999E+6144", "9.999999999999999999999999999999999E+6144"),
        ("1E-6176", "1E-6176"), ("1E+6112", "1.0E+6112"), ("0E+9999", "0E+6111"), ("-0E-9999", "-0E-6176"),
        ("1E+6145", "Infinity"), ("-1E+6145", "-Infinity"), ("1E-6177", "0E-6176"),
        ("NaN", "NaN"), ("nan", "NaN"), ("-NaN", "-NaN"), ("sNaN", "sNaN"), ("NaN42", "NaN42"),
        ("Inf", "Infinity"), ("inf", "Infinity"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"),
        ("+INFINITY", "Infinity"), ("-inf", "-Infinity"),
    ]

    @Test("Parsing then printing scientificString gives the to-scientific-string form", arguments: printed)
    func parsesAndPrints(input: String, expected: String) throws {
        let value = try Decimal128(string: input)
        #expect(value.scientificString == expected)
    }

    @Test("Printed text parses back to identical bits", arguments: printed)
    func printedTextRoundTrips(input: String, expected: String) throws {
        let value = try Decimal128(string: input)
        let reparsed = try Decimal128(string: value.scientificString)
        #expect(reparsed.bid == value.bid)
    }

    @Test(
        "More than 34 digits round half-to-even when parsed",
        arguments: [
            ("12345678901234567890123456789012345", "1.234567890123456789012345678901234E+34"),
            ("12345678901234567890123456789012335", "1.234567890123456789012345678901234E+34"),
            ("12345678901234567890123456789012345000000001", "1.234567890123456789012345678901235E+43"),
            ("0.33333333333333333333333333333333335", "0.3333333333333333333333333333333334"),
            ("0.99999999999999999999999999999999995", "1.000000000000000000000000000000000"),
        ])
    func parsingRounds(input: String, expected: String) throws {
        #expect(try Decimal128(string: input).scientificString == expected)
    }

    @Test(
        "Garbage is rejected with a ValueParseError carrying the input",
        arguments: [
            "", "abc", "1.2.3", "1e", "1e+", "--1", "+", "-", ".", "1 ", " 1", "0x10", "1,000", "Infinit",
            "NaNx", "e5", "1e5.5", "1_000", "١", "NaN1234567890123456789012345678901234", "∞",
        ])
    func rejectsGarbage(input: String) {
        #expect(Decimal128(input) == nil)
        let error = #expect(throws: ValueParseError.self) { try Decimal128(string: input) }
        #expect(error?.input == input)
        #expect(error?.description.contains("Decimal128") == true)
    }

    @Test("The failable initializer parses valid strings")
    func failableInitializer() {
        let text = "2.50"
        #expect(Decimal128(text)?.scientificString == "2.50")
    }

    // MARK: - Encoding

    @Test(
        "BID bits of known values",
        arguments: [
            ("1", UInt64(1), UInt64(0x3040_0000_0000_0000)),
            ("-1", 1, 0xB040_0000_0000_0000),
            ("0", 0, 0x3040_0000_0000_0000),
            ("-0", 0, 0xB040_0000_0000_0000),
            ("0.1", 1, 0x303E_0000_0000_0000),
            ("12", 12, 0x3040_0000_0000_0000),
            ("12345678.543210", 0x0000_0B3A_73C8_B96A, 0x3034_0000_0000_0000),
            ("9.999999999999999999999999999999999E+6144", 0x378D_8E63_FFFF_FFFF, 0x5FFF_ED09_BEAD_87C0),
            ("1E-6176", 1, 0x0000_0000_0000_0000),
            ("Infinity", 0, 0x7800_0000_0000_0000),
            ("-Infinity", 0, 0xF800_0000_0000_0000),
            ("NaN", 0, 0x7C00_0000_0000_0000),
            ("sNaN", 0, 0x7E00_0000_0000_0000),
        ])
    func knownBits(text: String, low: UInt64, high: UInt64) throws {
        let value = try Decimal128(string: text)
        #expect(value.bid.low == low)
        #expect(value.bid.high == high)
        #expect(Decimal128(bid: (low: low, high: high)).scientificString == value.scientificString)
    }

    @Test("init() and integer conversions give exponent 0")
    func zeroAndIntegersBits() {
        #expect(Decimal128().bid == (low: 0, high: 0x3040_0000_0000_0000))
        #expect(Decimal128(1).bid == (low: 1, high: 0x3040_0000_0000_0000))
        #expect(Decimal128(-1).bid == (low: 1, high: 0xB040_0000_0000_0000))
        #expect(Decimal128(Int.min).scientificString == "-9223372036854775808")
        #expect(Decimal128(UInt64.max).scientificString == "18446744073709551615")
        let literal: Decimal128 = 42
        #expect(literal.bid == (low: 42, high: 0x3040_0000_0000_0000))
    }

    @Test("Any bit pattern survives init(bid:) unchanged; non-canonical coefficients read as zero")
    func rawBitsAreLossless() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let bits = (low: generator.next() as UInt64, high: generator.next() as UInt64)
            let value = Decimal128(bid: bits)
            #expect(value.bid == bits)
        }
        // Coefficient 10^34 (just too large) and the 0b11 "large" form are non-canonical.
        let tooLarge = Decimal128(bid: (low: 0x378D_8E64_0000_0000, high: 0x3041_ED09_BEAD_87C0))
        #expect(tooLarge.isZero)
        #expect(tooLarge == 0)
        let largeForm = Decimal128(bid: (low: 5, high: 0x6000_0000_0000_0000))
        #expect(largeForm.isZero)
        #expect(largeForm.hashValue == Decimal128(0).hashValue)
    }

    // MARK: - Arithmetic

    @Test("0.1 + 0.2 is exactly 0.3")
    func decimalFractionsAreExact() throws {
        let sum = try Decimal128(string: "0.1") + Decimal128(string: "0.2")
        #expect(sum == Decimal128("0.3"))
        #expect(sum.bid == Decimal128("0.3").bid)
        #expect(sum.scientificString == "0.3")
        let literals: Decimal128 = 0.1
        #expect(literals + 0.2 == 0.3)
    }

    @Test(
        "Exact results keep the ideal exponent",
        arguments: [
            ("1.5", "+", "1.25", "2.75"), ("1.0", "+", "2", "3.0"), ("2.50", "*", "2", "5.00"),
            ("1", "/", "4", "0.25"), ("6", "/", "2", "3"), ("1.00", "/", "2", "0.50"), ("5", "-", "5", "0"),
            ("1E+3", "/", "1E+1", "1E+2"), ("19.99", "*", "3", "59.97"), ("-0.5", "-", "0.25", "-0.75"),
            ("0", "+", "1.50", "1.50"), ("0.000", "+", "1", "1.000"), ("12", "/", "0.5", "24"),
        ])
    func exactArithmetic(lhs: String, op: String, rhs: String, expected: String) throws {
        let (a, b) = (try Decimal128(string: lhs), try Decimal128(string: rhs))
        let result: Decimal128 =
            switch op {
            case "+": a + b
            case "-": a - b
            case "*": a * b
            default: a / b
            }
        #expect(result.scientificString == expected)
    }

    @Test("Inexact quotients have 34 digits, rounded half-to-even")
    func inexactDivision() {
        let one: Decimal128 = 1
        #expect((one / 3).scientificString == "0.3333333333333333333333333333333333")
        #expect((Decimal128(2) / 3).scientificString == "0.6666666666666666666666666666666667")
        #expect((one / 3 * 3).scientificString == "0.9999999999999999999999999999999999")
        #expect((one / 7).scientificString == "0.1428571428571428571428571428571429")
        #expect((Decimal128(-1) / 3).scientificString == "-0.3333333333333333333333333333333333")
    }

    @Test("Sums that need a 35th digit round half-to-even")
    func halfEvenAddition() throws {
        let big = try Decimal128(string: "1E+34")
        #expect((big + 5).scientificString == "1.000000000000000000000000000000000E+34")  // tie, keep even 0
        #expect((big + 15).scientificString == "1.000000000000000000000000000000002E+34")  // tie, 1 → 2
        #expect((big + 25).scientificString == "1.000000000000000000000000000000002E+34")  // tie, keep even 2
        #expect((big + 26).scientificString == "1.000000000000000000000000000000003E+34")
        #expect(try (big + Decimal128(string: "5.0000001")).scientificString == "1.000000000000000000000000000000001E+34")
        #expect((big - 5).scientificString == "9999999999999999999999999999999995")  // fits exactly
    }

    @Test("Operands with far-apart exponents round correctly")
    func farApartOperands() throws {
        let huge = try Decimal128(string: "1E+100")
        let tiny = try Decimal128(string: "1E-100")
        #expect((huge + tiny).scientificString == "1.000000000000000000000000000000000E+100")
        #expect((huge - tiny).scientificString == "1.000000000000000000000000000000000E+100")
        #expect((tiny - huge).scientificString == "-1.000000000000000000000000000000000E+100")
        let one: Decimal128 = 1
        #expect(try (one - Decimal128(string: "6E-35")).scientificString == "0.9999999999999999999999999999999999")
        #expect(try (one - Decimal128(string: "6E-80")).scientificString == "1.000000000000000000000000000000000")
        #expect(
            try (Decimal128(string: "1E+34") + Decimal128(string: "5E-50")).scientificString
                == "1.000000000000000000000000000000000E+34")
    }

    @Test("Overflow gives infinity and underflow gives zero")
    func overflowAndUnderflow() throws {
        #expect(Decimal128.max + Decimal128.max == .infinity)
        #expect((Decimal128.max * 10).isInfinite)
        #expect(Decimal128.min - Decimal128.max == -Decimal128.infinity)
        #expect(try Decimal128.max / Decimal128(string: "0.1") == .infinity)
        let smallest = try Decimal128(string: "1E-6176")
        #expect((smallest / 10).scientificString == "0E-6176")
        #expect(try (smallest * Decimal128(string: "0.5")).scientificString == "0E-6176")  // tie rounds to even 0
        #expect(try (Decimal128(string: "3E-6176") / 2).scientificString == "2E-6176")  // tie rounds to even 2
    }

    @Test("min and max are the extreme finite values")
    func extremes() {
        #expect(Decimal128.max.scientificString == "9.999999999999999999999999999999999E+6144")
        #expect(Decimal128.min.scientificString == "-9.999999999999999999999999999999999E+6144")
        #expect(Decimal128.maximumDecimalNumber == .max)
        #expect(Decimal128.minimumDecimalNumber == .min)
        #expect(Decimal128.min < Decimal128.max)
    }

    @Test("Compound assignment, negation and magnitude")
    func mutationsAndSigns() throws {
        var x: Decimal128 = "10.5"
        x += 1
        x -= "0.5"
        x *= 2
        x /= 4
        #expect(x.scientificString == "5.5")
        #expect((-x).scientificString == "-5.5")
        x.negate()
        #expect(x.scientificString == "-5.5")
        #expect(x.magnitude.scientificString == "5.5")
        #expect(try Decimal128(string: "-1.50").magnitude.scientificString == "1.50")
        #expect((-Decimal128(0)).scientificString == "-0")
        #expect(x.distance(to: 0) == 5.5)
        #expect(x.advanced(by: 1).scientificString == "-4.5")
    }

    // MARK: - Comparison and hashing

    @Test(
        "Values with different exponents compare and hash numerically",
        arguments: [
            ("1.0", "1.00"), ("1", "1.000"), ("10", "1E+1"), ("0", "-0"), ("0E+10", "0.000"), ("-2.50", "-2.5"),
            ("1234567890123456789012345678901234E-33", "1.234567890123456789012345678901234"),
        ])
    func equalAcrossExponents(lhs: String, rhs: String) throws {
        let (a, b) = (try Decimal128(string: lhs), try Decimal128(string: rhs))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a <= b && a >= b && !(a < b) && !(a > b))
    }

    @Test(
        "Ordering is numeric across exponents",
        arguments: [
            ("0.1", "0.11"), ("-1", "-0.5"), ("99.99", "1E+2"), ("-0", "1E-6176"), ("1E-6176", "1E+6111"),
            ("-Infinity", "-9.999999999999999999999999999999999E+6144"), ("9.99E+6144", "Infinity"),
            ("0.3333333333333333333333333333333333", "0.3333333333333333333333333333333334"), ("-5", "3"),
        ])
    func ordersNumerically(lower: String, higher: String) throws {
        let (a, b) = (try Decimal128(string: lower), try Decimal128(string: higher))
        #expect(a < b && a <= b && b > a && b >= a && a != b)
        #expect(!(b < a) && !(b <= a))
    }

    @Test("A set holds one element for numerically equal values")
    func setsDeduplicateNumerically() throws {
        let values = try ["1", "1.0", "1.00", "1E+0", "10E-1"].map { try Decimal128(string: $0) }
        #expect(Set(values).count == 1)
    }

    @Test("NaN is unordered and unequal to everything, itself included")
    func nanRules() throws {
        let nan = Decimal128.nan
        #expect(nan.isNaN && !nan.isSignaling && !nan.isInfinite && !nan.isFinite)
        #expect(nan != nan)
        #expect(!(nan == nan))
        for other in [nan, 0, 1, .infinity, -.infinity] {
            #expect(!(nan < other) && !(nan <= other) && !(nan > other) && !(nan >= other))
            #expect(!(other < nan) && !(other <= nan) && !(other > nan) && !(other >= nan))
        }
        let signaling = try Decimal128(string: "sNaN")
        #expect(signaling.isSignaling && signaling.isSignalingNaN && signaling.isNaN)
        #expect((signaling + 1).isNaN && !(signaling + 1).isSignaling)
        #expect((Decimal128(1) + nan).isNaN)
        #expect(try Decimal128(string: "-NaN7").magnitude.scientificString == "NaN7")
    }

    @Test("Infinity arithmetic follows IEEE 754")
    func infinityRules() {
        let inf = Decimal128.infinity
        #expect(inf.isInfinite && !inf.isNaN && !inf.isFinite)
        #expect(inf > .max && -inf < .min)
        #expect(inf == inf && -inf == -inf && inf != -inf)
        #expect((inf - inf).isNaN)
        #expect((inf + inf) == inf)
        #expect((Decimal128(0) * inf).isNaN)
        #expect((inf / inf).isNaN)
        #expect(Decimal128(1) / 0 == inf)
        #expect(Decimal128(-1) / 0 == -inf)
        #expect((Decimal128(0) / 0).isNaN)
        #expect((Decimal128(5) / inf).isZero)
        #expect((inf * -2) == -inf)
        #expect((inf + 1) == inf)
    }

    @Test("isTotallyOrdered(belowOrEqualTo:) gives IEEE 754's totalOrder")
    func totalOrder() throws {
        let expected = try [
            "-NaN", "-sNaN", "-Infinity", "-2", "-1", "-1.0", "-0", "0.0", "0", "0E+3", "1.00", "1.0", "1", "1E+1",
            "Infinity", "sNaN", "NaN", "NaN5",
        ].map { try Decimal128(string: $0) }
        let shuffled = expected.shuffled()
        let sorted = shuffled.sorted { !$1.isTotallyOrdered(belowOrEqualTo: $0) }
        #expect(sorted.map(\.scientificString) == expected.map(\.scientificString))
        for value in expected { #expect(value.isTotallyOrdered(belowOrEqualTo: value)) }
    }

    // MARK: - Conversions

    @Test(
        "Doubles convert as their 15-significant-digit decimal",
        arguments: [
            (0.1, "0.1"), (1.5, "1.5"), (-0.001, "-0.001"), (100.0, "100"), (1e20, "100000000000000000000"),
            (1.0 / 3.0, "0.333333333333333"), (2.0 / 3.0, "0.666666666666667"), (1e40, "1E+40"), (-0.0, "-0"),
            (123456789012345678.0, "123456789012346000"), (Double.leastNonzeroMagnitude, "4.94065645841247E-324"),
            (Double.greatestFiniteMagnitude, "1.79769313486232E+308"), (Double.infinity, "Infinity"),
        ])
    func doubleConversion(double: Double, expected: String) {
        #expect(Decimal128(double).scientificString == expected)
    }

    @Test("Other number types and untyped values convert")
    func otherConversions() throws {
        #expect(Decimal128(Double.nan).isNaN)
        #expect(Decimal128(Float(0.1)).scientificString == "0.1")
        #expect(Decimal128(Int8(-5)).scientificString == "-5")
        #expect(Decimal128(exactly: UInt64.max)?.scientificString == "18446744073709551615")
        let tenToThe38 = UInt128(10_000_000_000_000_000_000) * UInt128(10_000_000_000_000_000_000)
        #expect(Decimal128(exactly: tenToThe38)?.scientificString == "1.000000000000000000000000000000000E+38")
        #expect(Decimal128(exactly: tenToThe38 + 1) == nil)
        #expect(Decimal128(tenToThe38 + 1).scientificString == "1.000000000000000000000000000000000E+38")
        #expect(Decimal128(number: NSNumber(value: 2.5)).scientificString == "2.5")
        #expect(Decimal128(number: NSNumber(value: 7)).scientificString == "7")
        #expect(Decimal128(number: NSNumber(value: UInt64.max)).scientificString == "18446744073709551615")
        #expect(Decimal128(value: 3).scientificString == "3")
        #expect(Decimal128(value: UInt16(9)).scientificString == "9")
        #expect(Decimal128(value: 0.25).scientificString == "0.25")
        #expect(Decimal128(value: "1E+3").scientificString == "1E+3")
        #expect(Decimal128(value: Decimal(string: "12.345")!).scientificString == "12.345")
        #expect(Decimal128(value: NSNumber(value: 4)).scientificString == "4")
        #expect(Decimal128(value: Decimal128(8)).scientificString == "8")
    }

    @Test("doubleValue and decimalValue convert back")
    func toFoundationNumbers() throws {
        #expect(try Decimal128(string: "0.1").doubleValue == 0.1)
        #expect(try Decimal128(string: "-1.5E+300").doubleValue == -1.5e300)
        #expect(try Decimal128(string: "1E+400").doubleValue == .infinity)
        #expect(Decimal128.nan.doubleValue.isNaN)
        #expect((-Decimal128.infinity).doubleValue == -.infinity)
        #expect(try Decimal128(string: "12.345").decimalValue == Decimal(string: "12.345"))
        #expect(Decimal128.nan.decimalValue.isNaN)
        #expect(Decimal128.max.decimalValue.isNaN)
    }

    @Test("Codable writes Realm's text and reads back equal values")
    func codableRoundTrip() throws {
        let values = try [
            "1.5", "-0.001", "1E+10", "1.00", "NaN", "-Infinity", "9.999999999999999999999999999999999E+6144",
        ]
        .map { try Decimal128(string: $0) }
        let data = try JSONEncoder().encode(values)
        #expect(String(decoding: data, as: UTF8.self)
            == #"["1.5","-1E-3","1E10","1","NaN","-Inf","9.999999999999999999999999999999999E6144"]"#)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: data)
        for (read, written) in zip(decoded, values) {
            #expect(read == written || (read.isNaN && written.isNaN))
        }
        let numbers = try JSONDecoder().decode([Decimal128].self, from: Data("[5, 1.5, \"2.50\"]".utf8))
        #expect(numbers.map(\.scientificString) == ["5", "1.5", "2.50"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Decimal128].self, from: Data("[\"x\"]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Decimal128].self, from: Data("[true]".utf8)) }
    }

    @Test("A string literal that does not parse aborts")
    func badLiteralTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Decimal128(value: "not a number")
        }
    }

    @Test("Decimal128 is a SignedNumeric: generic numeric code sums it from .zero, takes abs and multiplies in place")
    func signedNumeric() {
        func total<N: SignedNumeric>(_ values: [N]) -> N { values.reduce(.zero, +) }
        let values: [Decimal128] = [1.5, -2.25, 3]
        #expect(total(values) == Decimal128("2.25"))
        #expect(abs(Decimal128(-4.5)) == 4.5)
        var product: Decimal128 = 2
        product *= 1.5
        #expect(product == 3)
        #expect(Decimal128.zero == 0)
    }

}
