import CLibUV
import StrataEventLoop
import Testing

@Suite("LibUVEventLoopError")
struct EventLoopErrorTests {
    @Test("an error carries libuv's name and message for its code")
    func describesTheLibUVError() {
        let error = LibUVEventLoopError(code: UV_EMFILE.rawValue, operation: "uv_loop_init")
        #expect(error.name == "EMFILE")
        #expect(error.message == "too many open files")
        #expect(error.description == "uv_loop_init failed: EMFILE (too many open files)")
    }
}
