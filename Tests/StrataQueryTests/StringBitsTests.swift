import Foundation
import StrataEngine
@testable import StrataQuery
import Testing

/// `StringBits` decides byte equality of small strings from their words; these tests hold the
/// layout it reads to strings built in every common way, small and large, ASCII and not.
@Suite("String bits")
struct StringBitsTests {
    /// Equal contents, built in different ways (literals, interpolation, concatenation, decoding,
    /// slicing, trimming a longer string, a round trip through Foundation).
    private static func variants(of text: String) -> [String] {
        let bytes = Array(text.utf8)
        var trimmed = text + "xyz-tail-that-makes-it-long"
        trimmed.removeLast("xyz-tail-that-makes-it-long".count)
        var built = ""
        for character in text { built.append(character) }
        return [
            text,
            "\(text)",
            String(text.prefix(text.count / 2)) + String(text.dropFirst(text.count / 2)),
            String(decoding: bytes, as: UTF8.self),
            String(Substring(text)),
            trimmed,
            built,
            String(describing: NSString(string: text)),
            String(repeating: text, count: 1),
        ]
    }

    private static let samples = [
        "", "a", "city-3", "city-30", "exactly 15 byte", "sixteen bytes!!!", "a longer string that is not small",
        "Å", "A\u{030A}", "ü-umlaut", "日本語", "emoji 🙂", "tab\tnewline\n", "\u{0}nul",
    ]

    @Test("small strings with the same bytes have the same words, and only those are small")
    func sameBytesSameWords() {
        for sample in Self.samples {
            let variants = Self.variants(of: sample)
            let first = StringBits(variants[0])
            #expect(first.isSmall == (sample.utf8.count <= 15), "\(sample)")
            for variant in variants where StringBits(variant).isSmall {
                #expect(StringBits(variant) == first, "\(sample) built another way has other words")
            }
        }
    }

    @Test("the words decide byte equality exactly as comparing the bytes does")
    func agreesWithBytes() {
        let all = Self.samples.flatMap(Self.variants(of:))
        for constant in all {
            let bits = StringBits(constant)
            for stored in all {
                let expected = Value.sameUTF8(stored, constant)
                #expect(withUnsafePointer(to: stored) { bits.sameUTF8($0, constant) } == expected, "\(stored) vs \(constant)")
            }
        }
    }
}
