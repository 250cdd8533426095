@testable import StrataEventLoop
import Testing

@Suite("libuv smoke test")
struct LibUVSmokeTests {
    @Test("libuv links, reports a 1.x version, and an empty loop closes cleanly")
    func emptyLoopCloses() {
        #expect(LibUV.version.hasPrefix("1."))
        #expect(LibUV.runEmptyLoop() == 0)
    }
}
