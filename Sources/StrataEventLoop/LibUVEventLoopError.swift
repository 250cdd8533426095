import CLibUV

/// A libuv call made by an ``LibUVEventLoop`` failed.
///
/// Carries libuv's error number together with its symbolic name and message, and the libuv
/// function that reported it, so that the description reads like
/// `uv_loop_init failed: EMFILE (too many open files)`.
///
/// ```swift
/// do {
///     let loop = try LibUVEventLoop()
///     loop.run()
/// } catch let error as LibUVEventLoopError {
///     print(error.name, error.message)   // e.g. "EMFILE", "too many open files"
/// }
/// ```
public struct LibUVEventLoopError: Error, CustomStringConvertible, Sendable {
    /// The negative libuv error number (`UV_E…`), as returned by the failed call.
    public let code: Int32
    /// libuv's symbolic name of ``code``, e.g. `"EMFILE"`.
    public let name: String
    /// libuv's human-readable message for ``code``, e.g. `"too many open files"`.
    public let message: String
    /// The libuv function (or Strata operation) that failed, e.g. `"uv_loop_init"`.
    public let operation: String

    /// Creates an error for libuv error number `code` reported by `operation`.
    ///
    /// - Parameters:
    ///   - code: A negative libuv error number.
    ///   - operation: The function that returned it.
    public init(code: Int32, operation: String) {
        self.code = code
        self.name = String(cString: uv_err_name(code))
        self.message = String(cString: uv_strerror(code))
        self.operation = operation
    }

    /// `"<operation> failed: <NAME> (<message>)"`.
    public var description: String {
        "\(operation) failed: \(name) (\(message))"
    }
}

extension LibUVEventLoopError {
    /// Throws an ``LibUVEventLoopError`` when `result` is a libuv error (negative).
    static func check(_ result: Int32, _ operation: String) throws(LibUVEventLoopError) {
        if result < 0 { throw LibUVEventLoopError(code: result, operation: operation) }
    }
}
