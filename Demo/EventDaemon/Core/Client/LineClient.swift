#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A blocking NDJSON client of the daemon over TCP or a Unix socket (for the load generator,
/// the demo and the tests): send lines, read lines.
public final class LineClient: @unchecked Sendable {
    // Safety: `fd` changes only in `close(reset:)`, which callers make when no other thread uses
    // the client; `buffer` is used by the one reading thread only (`readLine`).
    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host:port`.
    ///
    /// - Parameters:
    ///   - host: The daemon's IPv4 or IPv6 address.
    ///   - port: The daemon's TCP port.
    ///   - timeout: When set, a `readLine()` that waits longer returns nil and a `send` that cannot
    ///     make progress for that long gives up (tests use it so that a stuck daemon fails them
    ///     instead of hanging them).
    ///   - authToken: The daemon's shared token (`--auth-token-file`): sent as the first line,
    ///     and the daemon's answer awaited.
    /// - Throws: `POSIXError` when the connection is refused (`EINVAL` for a port outside
    ///   0...65535); ``LineClientError`` when the daemon refuses the token.
    public init(host: String = "127.0.0.1", port: Int, timeout: Duration? = nil, authToken: String? = nil) throws {
        guard let port16 = UInt16(exactly: port) else { throw POSIXError(.EINVAL) }
        let result: Int32
        if host.contains(":") {
            fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port16.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                Glibc.close(fd)
                throw POSIXError(.EINVAL)
            }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port16.bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        if result != 0 {
            Glibc.close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
        if let timeout { setTimeout(timeout) }
        if let authToken { try authenticate(authToken) }
    }

    /// Sends `{"auth":"<token>"}` and reads the daemon's answer.
    private func authenticate(_ token: String) throws {
        send(line: #"{"auth":\#(JSONValue.string(token).text)}"#)
        let answer = readLine()
        guard answer == #"{"authenticated":true}"# else { throw LineClientError(reply: answer) }
    }

    /// Connects to a Unix socket.
    ///
    /// - Parameters:
    ///   - path: The socket's path.
    ///   - timeout: As for ``init(host:port:timeout:)``.
    /// - Throws: `POSIXError` when the connection is refused.
    public init(unixPath path: String, timeout: Duration? = nil) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 {
            Glibc.close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
        if let timeout { setTimeout(timeout) }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Closes the connection now, without reading what the daemon sent; with `reset` it is
    /// aborted (`SO_LINGER` 0: the daemon sees a reset, not an end of stream). Call it when no
    /// other thread uses the client; later sends and reads do nothing.
    public func close(reset: Bool = false) {
        guard fd >= 0 else { return }
        if reset {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        Glibc.close(fd)
        fd = -1
    }

    private func setTimeout(_ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            _ = setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// Sends raw bytes (lines must carry their own newlines).
    public func send(_ bytes: [UInt8]) {
        guard fd >= 0 else { return }
        var rest = bytes[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            rest = rest.dropFirst(written)
        }
    }

    /// Sends a line (a newline is added).
    public func send(line: String) { send(Array((line + "\n").utf8)) }

    /// The next line, or nil when the daemon closed the connection (or, with a timeout, sent
    /// nothing for that long).
    public func readLine() -> String? {
        guard fd >= 0 else { return nil }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Reads at most `count` bytes into the buffer ``readLine()`` takes lines from (for a client
    /// that reads slowly, a little at a time); returns how many (0 when the daemon closed the
    /// connection or, with a timeout, sent nothing for that long).
    public func receive(atMost count: Int) -> Int {
        guard fd >= 0 else { return 0 }
        var chunk = [UInt8](repeating: 0, count: count)
        let received = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        guard received > 0 else { return 0 }
        buffer.append(contentsOf: chunk[..<received])
        return received
    }

    /// Stops sending (the daemon sees the end of the stream).
    public func finishSending() { if fd >= 0 { Glibc.shutdown(fd, Int32(SHUT_WR)) } }
}

/// The daemon refused a client's token.
public struct LineClientError: Error, CustomStringConvertible {
    /// The daemon's reply (nil: it closed without one).
    public let reply: String?
    /// What the daemon answered.
    public var description: String { "the daemon refused the auth token: \(reply ?? "connection closed")" }
}
