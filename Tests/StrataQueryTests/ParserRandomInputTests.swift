import Foundation
import StrataEngine
import StrataQuery
import StrataTestSupport
import Testing

/// Random and fuzz-corpus inputs: parsing must return or throw, never trap or hang.
@Suite("RQL parser: random input")
struct ParserRandomInputTests {
    /// Fragments of queries: tokens, pieces of tokens and awkward characters.
    static let alphabet: [String] = [
        "a", "b.c", "dogs", "map", "$x", "$y", "$0", "$1", "$3", "$9", "$", "@count", "@size", "@sum", "@avg",
        "@keys", "@values", "@type", "@links", "@", ".", ",", "(", ")", "{", "}", "[", "]", "[c]", "[cd]",
        "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "&&", "||", "!", "&", "|", "AND", "or", "NOT",
        "ANY", "some", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "endswith", "CONTAINS", "LIKE", "GEOWITHIN",
        "geoBox", "geoCircle", "geoPolygon", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE", "nil", "NULL",
        "true", "false", "SORT", "DISTINCT", "LIMIT", "ASC", "DESC", "0", "5", "-1", "1.5", "-.5", "1e308",
        "1e999", "0x7fffffffffffffff", "99999999999999999999", "T1:2", "T-1:-2", "T", "2024-01-31@12:00:00",
        "2024-02-30@00:00:00", "-5-1-1@1:1:1:5", "oid(", "oid(507f1f77bcf86cd799439011)", "uuid(",
        "uuid(3b241101-e2bb-4255-8caf-4136c566a962)", "B64\"", "B64'AQ=='", "'", "\"", "'str'", "\"s\\\"\"",
        "\\", "\\u", "\\ud83d", "'\\ud83d\\ude00'", "é", "\u{301}", "😀", "\0", "\n", "\t", " ", "-", "~", "#",
        "%@", "%K", "%d", "%ld", "%lld", "%u", "%f", "%lf", "%g", "%s", "%%", "%", "%x", "YES", "no", "'%@'",
    ]

    @Test("10,000 random strings from the token alphabet parse or throw a positioned error")
    func randomTokenStrings() {
        let seed = ProcessInfo.processInfo.environment["RQL_RANDOM_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        print("RQL random-input test seed: \(seed) (rerun with RQL_RANDOM_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        var parsed = 0
        for _ in 0..<10_000 {
            var text = ""
            for _ in 0..<Int.random(in: 1...24, using: &random) {
                text += Self.alphabet.randomElement(using: &random)!
                if Bool.random(using: &random) { text += " " }
            }
            if check(text) { parsed += 1 }
        }
        print("RQL random-input test: \(parsed) of 10000 parsed")
    }

    @Test("every fuzz-corpus query parses, and mutations of it parse or throw")
    func corpus() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.count >= 12)
        var random = SeededRandom(seed: 42)
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            #expect(throws: Never.self, "\(file)") { try RQLParser.parse(text, arguments: FormatArgumentSamples.arguments(for: text)) }
            var scalars = Array(text.unicodeScalars)
            for _ in 0..<200 {
                let index = Int.random(in: 0..<scalars.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: scalars.remove(at: index)
                case 1: scalars.insert(Self.alphabet.randomElement(using: &random)!.unicodeScalars.first ?? " ", at: index)
                default: scalars[index] = Unicode.Scalar(UInt8.random(in: 32...126, using: &random))
                }
                if scalars.isEmpty { scalars = Array(text.unicodeScalars) }
                _ = check(String(String.UnicodeScalarView(scalars)))
            }
        }
    }

    /// Parses `text`; a thrown error must point into the text and end with its position.
    private func check(_ text: String) -> Bool {
        do {
            _ = try RQLParser.parse(text, arguments: FormatArgumentSamples.arguments(for: text))
            return true
        } catch {
            let length = text.unicodeScalars.count
            #expect((0...length).contains(error.position), "\(text.debugDescription): \(error)")
            #expect(error.message.hasSuffix(" at position \(error.position)"), "\(text.debugDescription): \(error)")
            return false
        }
    }
}
