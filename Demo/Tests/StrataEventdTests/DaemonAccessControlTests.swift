#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import StrataEventd
import Testing

/// Who may talk to the daemon, end to end: the Unix socket's mode and group, the TCP token, and
/// the refusal to listen beyond loopback without one.
@Suite("strata-eventd access control end to end", .serialized)
struct DaemonAccessControlTests {
    @Test("the Unix socket is created with mode 0600, or 0660 with the group given by --socket-group")
    func socketMode() throws {
        let socketPath = Self.socketPath()
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), socketPath: socketPath)
        var status = stat()
        #expect(stat(socketPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(daemon.terminate() == 0)

        let group = try #require(getgrgid(getegid()))
        let groupName = String(cString: group.pointee.gr_name)
        let shared = Self.socketPath()
        let groupDaemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), socketPath: shared,
                                            extraArguments: ["--socket-group", groupName])
        defer { groupDaemon.terminate() }
        #expect(stat(shared, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o660 && status.st_gid == getegid())
        let client = try LineClient(unixPath: shared, timeout: DaemonProcess.patience)
        client.send(line: eventLine("over-the-socket"))
        #expect(client.readLine() == #"{"ack":"over-the-socket"}"#)
    }

    @Test("with --auth-token-file a TCP client must send the token first: right is served, wrong or missing is refused and counted")
    func tokenRequired() throws {
        let path = DaemonProcess.temporaryPath()
        try "s3cret-token\n".write(toFile: path + ".token", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(dataPath: path, extraArguments: ["--auth-token-file", path + ".token"])
        defer { daemon.terminate() }

        let missing = try daemon.client()
        missing.send(line: eventLine("unauthenticated"))
        #expect(missing.readLine()?.hasPrefix(#"{"error":"authentication failed"#) == true)
        #expect(missing.readLine() == nil)

        #expect(throws: LineClientError.self) {
            _ = try LineClient(port: daemon.port, timeout: DaemonProcess.patience, authToken: "s3cret-tokeN")
        }
        #expect(throws: LineClientError.self) {
            _ = try LineClient(port: daemon.port, timeout: DaemonProcess.patience, authToken: "s3cret-token-longer")
        }

        let client = try LineClient(port: daemon.port, timeout: DaemonProcess.patience, authToken: "s3cret-token")
        client.send(line: eventLine("authenticated"))
        #expect(client.readLine() == #"{"ack":"authenticated"}"#)
        client.send(line: #"{"stats":true}"#)
        let stats = try #require(client.readLine())
        #expect(stats.contains(#""authFailures":3"#), "\(stats)")

        var generator = LoadGenerator(port: daemon.port, count: 50, connections: 2, idPrefix: "auth")
        generator.authToken = "s3cret-token"
        let report = try generator.run()
        #expect(report.acknowledged == 50 && report.errors == 0)
    }

    @Test("a non-loopback --host without a token refuses to start with one clear line and a non-zero exit")
    func nonLoopbackNeedsToken() throws {
        let path = DaemonProcess.temporaryPath()
        let (status, message) = try DaemonProcess.refusedStart(["--host", "0.0.0.0", "--port", "0", "--data", path])
        #expect(status != 0)
        #expect(message.contains("not a loopback address") && message.contains("--auth-token-file"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: path), "the store was created before the refusal")

        let (emptyStatus, emptyMessage) = try DaemonProcess.refusedStart(
            ["--port", "0", "--data", path, "--auth-token-file", "/nonexistent/token"])
        #expect(emptyStatus != 0 && emptyMessage.contains("cannot read --auth-token-file"), "\(emptyMessage)")
    }

    @Test("::1 is loopback in every spelling, and :: and other IPv6 addresses are not; names are not addresses")
    func loopbackAddresses() {
        for host in ["127.0.0.1", "127.9.8.7", "::1", "0:0:0:0:0:0:0:1", "0000::0001"] {
            #expect(AccessControl.isLoopback(host), "\(host)")
        }
        for host in ["0.0.0.0", "10.0.0.1", "::", "::2", "fe80::1", "::ffff:10.0.0.1", "localhost", ""] {
            #expect(!AccessControl.isLoopback(host), "\(host)")
        }
        #expect(AccessControl.isIPAddress("::1") && AccessControl.isIPAddress("10.0.0.1") && !AccessControl.isIPAddress("localhost"))
    }

    @Test("the daemon listens on ::1 without a token and serves a client there; :: without a token is refused",
          .enabled(if: DaemonAccessControlTests.hasIPv6Loopback))
    func ipv6Loopback() throws {
        let daemon = try DaemonProcess(dataPath: DaemonProcess.temporaryPath(), extraArguments: ["--host", "::1"])
        defer { daemon.terminate() }
        let client = try LineClient(host: "::1", port: daemon.port, timeout: DaemonProcess.patience)
        client.send(line: #"{"ping":true}"#)
        #expect(client.readLine() == #"{"pong":true}"#)
        let ctl = try DaemonProcess.control(["ping", "--host", "::1", "--port", String(daemon.port)])
        #expect(ctl.status == 0, "\(ctl.error)")
        let path = DaemonProcess.temporaryPath()
        let (status, message) = try DaemonProcess.refusedStart(["--host", "::", "--port", "0", "--data", path])
        #expect(status != 0 && message.contains("--auth-token-file"), "\(message)")
    }

    /// Whether this machine has an IPv6 loopback interface to listen on.
    static var hasIPv6Loopback: Bool {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }

    private static func socketPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("eventd-\(UUID().uuidString.prefix(6)).sock").path
    }
}
