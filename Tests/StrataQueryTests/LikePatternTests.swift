@testable import StrataQuery
import StrataSupport
import StrataTestSupport
import Testing

/// `LIKE` through ``LikePattern``, the matcher linear in the text that long texts and patterns
/// use, against backtracking, which short ones use.
@Suite("LIKE matching")
struct LikePatternTests {
    @Test("wildcards, runs of stars, patterns of more than 64 characters and non-ASCII text match as globs",
          arguments: [
        ("", "", true), ("", "*", true), ("", "?", false), ("a", "", false), ("abc", "abc", true),
        ("abc", "a?c", true), ("abc", "a*", true), ("abc", "*c", true), ("abc", "*b*", true), ("abc", "**a**c**", true),
        ("abc", "*d*", false), ("abc", "ab", false), ("abcabd", "*abd", true), ("aaab", "*a?b", true),
        ("aaab", "a*a*a*a*b", false), ("ab*", "ab*", true), ("caf\u{E9}!", "caf?!", true), ("\u{1F600}x", "?x", true),
        (String(repeating: "a", count: 70) + "b", String(repeating: "a", count: 70) + "b", true),
        (String(repeating: "a", count: 70) + "b", "*" + String(repeating: "a", count: 69) + "b", true),
        (String(repeating: "a", count: 70) + "b", "*" + String(repeating: "a", count: 71) + "*", false),
        (String(repeating: "ab", count: 100), "*" + String(repeating: "?b", count: 100), true),
        (String(repeating: "ab", count: 100), String(repeating: "a*", count: 100) + "b", true),
    ])
    func globs(text: String, pattern: String, expected: Bool) {
        #expect(LikePattern(pattern.unicodeScalars).matches(text.unicodeScalars) == expected)
        let backtracked = ValueComparison.likeByBacktracking(Array(text.unicodeScalars), Array(pattern.unicodeScalars))
        #expect(backtracked == expected)
    }

    @Test("the linear matcher agrees with backtracking on random texts and patterns")
    func agreesWithBacktracking() {
        let seed = SeededRandom.seedFromEnvironment()
        print("LikePatternTests seed: \(seed) (STRATA_SEED)")
        var random = SeededRandom(seed: seed)
        let textAlphabet: [Unicode.Scalar] = ["a", "b", "\u{E9}"]
        let patternAlphabet: [Unicode.Scalar] = ["a", "b", "\u{E9}", "?", "*"]
        for _ in 0..<longModeCount("STRATA_LIKE_CASES", standard: 3_000) {
            let text = (0..<Int.random(in: 0...90, using: &random)).map { _ in
                textAlphabet.randomElement(using: &random)!
            }
            let pattern = (0..<Int.random(in: 0...80, using: &random)).map { _ in
                patternAlphabet.randomElement(using: &random)!
            }
            let expected = ValueComparison.likeByBacktracking(text, pattern)
            let linear = LikePattern(pattern).matches(text)
            let described = "text \(String(String.UnicodeScalarView(text))), pattern \(String(String.UnicodeScalarView(pattern)))"
            #expect(linear == expected, "\(described)")
            if linear != expected { return }
        }
    }

    @Test("a long text against many long patterns gives up at a passed CPU deadline")
    func givesUpAtTheDeadline() {
        let text = String(repeating: "a", count: 200_000)
        let pattern = LikePattern(("*" + String(repeating: "a", count: 250) + "b").unicodeScalars)
        let (matched, passed) = CPUDeadline.run(within: .zero) { pattern.matches(text.unicodeScalars) }
        #expect(passed && !matched)
    }
}
