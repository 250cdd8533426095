import Foundation
@_spi(StrataDaemon) @testable import StrataEventLoop
import StrataTestSupport
import Testing

@Suite("Stream keepalive")
struct StreamKeepaliveTests {
    @Test("enableKeepalive sets the socket's keepalive, idle time, probe interval and probe count; a Unix socket has none")
    func settings() throws {
        let loop = try LibUVEventLoop.startThread(name: "keepalive-test")
        defer { loop.shutdownAndWait() }
        let seen = KeepaliveRecord()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-ka-\(UUID().uuidString.prefix(8)).sock").path
        defer { unlink(path) }
        let port = UncheckedPort()
        let ready = DispatchSemaphore(value: 0)
        loop.execute {
            let record: (StreamConnection) -> Void = { connection in
                let applied = connection.enableKeepalive(idle: .seconds(42), interval: .seconds(7), probes: 3)
                seen.add(applied: applied, settings: connection.keepaliveSettings.map {
                    "\($0.enabled) \($0.idle) \($0.interval) \($0.probes)"
                } ?? "none")
                connection.close()
            }
            do {
                let tcp = try StreamListener.tcp(host: "127.0.0.1", port: 0, on: loop, accept: record)
                let unix = try StreamListener.unix(path: path, on: loop, accept: record)
                seen.keep([tcp, unix])
                port.value = tcp.port
            } catch {
                Issue.record("\(error)")
            }
            ready.signal()
        }
        ready.wait()
        let tcpClient = try TestClient(port: port.value)
        #expect(waitUntil(timeout: 30) { seen.entries.count == 1 })
        let unixClient = try TestClient(path: path)
        #expect(waitUntil(timeout: 30) { seen.entries.count == 2 })
        #expect(seen.entries == ["true true 42 7 3", "true none"])
        withExtendedLifetime((tcpClient, unixClient)) {}
    }
}

/// What the accept callbacks saw (written on the loop thread, read by the test).
private final class KeepaliveRecord: @unchecked Sendable {
    // Safety: every field is behind `lock`.
    private let lock = NSLock()
    private var seen: [String] = []
    private var listeners: [StreamListener] = []

    func add(applied: Bool, settings: String) { lock.withLock { seen.append("\(applied) \(settings)") } }
    func keep(_ listeners: [StreamListener]) { lock.withLock { self.listeners = listeners } }
    var entries: [String] { lock.withLock { seen } }
}
