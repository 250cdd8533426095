#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Who may talk to the daemon: the Unix socket's file permissions, and the TCP listener's
/// shared token.
///
/// The Unix socket is created with mode 0600 (owner only), or 0660 with a group given by
/// `--socket-group`. A TCP client, when the daemon has a token (`--auth-token-file`), must send
/// `{"auth":"<token>"}` as its first line; it gets `{"authenticated":true}`, or one error line
/// and the close. A daemon bound to an address that is not loopback (127.0.0.0/8, `::1`) refuses
/// to start without a token. There is no TLS: the token crosses the network in clear.
public enum AccessControl {
    /// Reads a token file: its content without surrounding whitespace.
    ///
    /// - Throws: ``DaemonError`` when the file cannot be read or holds no token.
    public static func readToken(path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DaemonError("cannot read --auth-token-file \(path)")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw DaemonError("--auth-token-file \(path) is empty") }
        return token
    }

    /// Whether `host` is a loopback address: IPv4's 127.0.0.0/8, or IPv6's `::1` (in any of
    /// its spellings, `0:0:0:0:0:0:0:1` too).
    static func isLoopback(_ host: String) -> Bool {
        var address = in_addr()
        if inet_pton(AF_INET, host, &address) == 1 { return UInt32(bigEndian: address.s_addr) >> 24 == 127 }
        var address6 = in6_addr()
        guard inet_pton(AF_INET6, host, &address6) == 1 else { return false }
        return withUnsafeBytes(of: &address6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }

    /// Whether `host` is an IPv4 or IPv6 address (not a name).
    static func isIPAddress(_ host: String) -> Bool {
        var address = in_addr()
        var address6 = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address6) == 1
    }

    /// The group id of `name`.
    ///
    /// - Throws: ``DaemonError`` when there is no such group.
    static func groupID(named name: String) throws -> UInt32 {
        guard let group = getgrnam(name) else { throw DaemonError("--socket-group \(name): no such group") }
        return group.pointee.gr_gid
    }

    /// Whether `line` is `{"auth":"<token>"}` with the right token, compared in constant time
    /// (the time does not depend on where the first differing byte is).
    static func admits(_ line: [UInt8], token: [UInt8]) -> Bool {
        guard case .object(let fields)? = try? JSONParser.parse(line, maxDepth: 2),
              fields.count == 1, case .string(let offered)? = fields["auth"] else { return false }
        let offeredBytes = Array(offered.utf8)
        var difference = UInt8(truncatingIfNeeded: offeredBytes.count ^ token.count)
        if offeredBytes.count != token.count { difference |= 1 }
        for index in token.indices {
            difference |= token[index] ^ (index < offeredBytes.count ? offeredBytes[index] : 0)
        }
        return difference == 0
    }

    /// The reply to a good `auth` line.
    static let acceptedLine = #"{"authenticated":true}"#
    /// The reply to a missing or wrong one (then the daemon closes the connection).
    static let refusedLine = #"{"error":"authentication failed: the first line must be {\"auth\":\"<token>\"}"}"#
}
