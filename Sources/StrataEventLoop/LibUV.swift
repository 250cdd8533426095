import CLibUV

/// Facts about the libuv library Strata's event loop is built on.
///
/// The `LibUVEventLoop` and its schedulers come with change notifications; for now this target proves
/// that libuv (Debian's `libuv1-dev`, through the `CLibUV` system library) links and runs.
package enum LibUV {
    /// The version of the linked libuv, e.g. "1.44.2".
    package static var version: String { String(cString: uv_version_string()) }

    /// Initialises a loop, runs it once with nothing to do, and closes it.
    ///
    /// - Returns: the result of `uv_loop_close` (0 when every handle was closed).
    package static func runEmptyLoop() -> Int32 {
        var loop = uv_loop_t()
        guard uv_loop_init(&loop) == 0 else { return -1 }
        uv_run(&loop, UV_RUN_DEFAULT)
        return uv_loop_close(&loop)
    }
}
