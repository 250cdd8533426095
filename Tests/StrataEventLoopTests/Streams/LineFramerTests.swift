@_spi(StrataDaemon) import StrataEventLoop
import Testing

@Suite("LineFramer")
struct LineFramerTests {
    private func lines(_ chunks: [String], max: Int = 8) -> ([String], Bool) {
        var framer = LineFramer(maxLineBytes: max)
        var out: [String] = []
        for chunk in chunks {
            for event in framer.feed(Array(chunk.utf8)) {
                switch event {
                case .line(let bytes): out.append(String(decoding: bytes, as: UTF8.self))
                case .oversize: out.append("<oversize>")
                }
            }
        }
        return (out, framer.finish())
    }

    @Test("lines split at any chunk boundary, CRLF and empty lines included")
    func boundaries() {
        let text = "ab\r\ncd\n\nefgh\n"
        let whole = lines([text])
        #expect(whole.0 == ["ab", "cd", "", "efgh"] && !whole.1)
        for cut in 0...text.utf8.count {
            let bytes = Array(text.utf8)
            let parts = [String(decoding: bytes[..<cut], as: UTF8.self), String(decoding: bytes[cut...], as: UTF8.self)]
            #expect(lines(parts).0 == ["ab", "cd", "", "efgh"], "cut at \(cut)")
        }
    }

    @Test("an over-long line is skipped to its newline, also across chunks; a line at the limit passes")
    func oversize() {
        #expect(lines(["12345678\n"]).0 == ["12345678"])
        #expect(lines(["123456789\nok\n"]).0 == ["<oversize>", "ok"])
        #expect(lines(["12345", "67890", "12345", "\nok\n"]).0 == ["<oversize>", "ok"])
        #expect(lines(["12345678\r\n"]).0 == ["12345678"])
    }

    @Test("a stream that ends mid-line reports it")
    func truncated() {
        #expect(lines(["ab\ncd"]) == (["ab"], true))
        #expect(lines(["ab\n"]) == (["ab"], false))
        #expect(lines(["123456789012"]) == ([], true))
    }
}
