#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrataSupport
@_spi(StrataDaemon) @testable import StrataEventLoop
import Testing

/// A blocking POSIX client for the tests.
final class TestClient {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 { throw POSIXError(.ECONNREFUSED) }
    }

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Reads until `count` lines arrived or the peer closed.
    func readLines(_ count: Int) -> [String] {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.filter({ $0 == 10 }).count < count {
            let read = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if read <= 0 { break }
            buffer.append(contentsOf: chunk[..<read])
        }
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .prefix(count).map(String.init)
    }

    func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }
}

/// Echoes each line back with a prefix; records how connections end.
final class LineEcho: @unchecked Sendable {
    // Safety: `listeners` and the framers are used on the loop thread only; `ends` is locked.
    var listeners: [StreamListener] = []
    private let lock = NSLock()
    private var endings: [String] = []

    func attach(_ connection: StreamConnection) {
        var framer = LineFramer(maxLineBytes: 64)
        connection.onRead = { bytes in
            for event in framer.feed(bytes) {
                switch event {
                case .line(let line): connection.write(Array("echo:".utf8) + line + [10])
                case .oversize: connection.write(Array("oversize\n".utf8))
                }
            }
        }
        connection.onEnd = { [self] error in
            let truncated = framer.finish()
            lock.withLock { endings.append(error == nil ? (truncated ? "truncated" : "clean") : "error") }
            connection.close()
        }
        connection.startReading()
    }

    var ends: [String] { lock.withLock { endings } }
}

@Suite("Streams")
struct StreamTests {
    private func listen(_ loop: LibUVEventLoop, _ echo: LineEcho, unix path: String? = nil) throws -> Int {
        let port = UncheckedPort()
        let failure = UncheckedPort()
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            do {
                let listener = try path.map { try StreamListener.unix(path: $0, on: loop) { echo.attach($0) } }
                    ?? StreamListener.tcp(host: "127.0.0.1", port: 0, on: loop) { echo.attach($0) }
                echo.listeners.append(listener)
                port.value = listener.port
            } catch {
                failure.value = -1
            }
            done.signal()
        }
        done.wait()
        if failure.value != 0 { throw POSIXError(.EADDRINUSE) }
        return port.value
    }

    @Test("TCP lines echo back in order, with oversize and truncated lines reported")
    func tcpEcho() throws {
        let loop = try LibUVEventLoop.startThread(name: "stream-test")
        let echo = LineEcho()
        let port = try listen(loop, echo)
        #expect(port > 0)
        let client = try TestClient(port: port)
        client.send("one\ntwo\r\n" + String(repeating: "x", count: 100) + "\nthree\npartial")
        #expect(client.readLines(4) == ["echo:one", "echo:two", "oversize", "echo:three"])
        client.shutdownWrite()
        _ = client.readLines(1)
        loop.shutdownAndWait()
        #expect(echo.ends == ["truncated"])
        #expect(loop.lastCloseResult == 0)
    }

    @Test("a Unix socket serves the same, replacing a stale socket file")
    func unixEcho() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-\(UUID().uuidString.prefix(8)).sock").path
        for _ in 0..<2 {
            let loop = try LibUVEventLoop.startThread(name: "stream-unix")
            let echo = LineEcho()
            _ = try listen(loop, echo, unix: path)
            let client = try TestClient(path: path)
            client.send("hello\n")
            #expect(client.readLines(1) == ["echo:hello"])
            loop.shutdownAndWait()
            #expect(loop.lastCloseResult == 0)
        }
        unlink(path)
    }

    @Test("twenty clients with a thousand lines each get every reply, in order")
    func manyClients() throws {
        let loop = try LibUVEventLoop.startThread(name: "stream-many")
        let echo = LineEcho()
        let port = try listen(loop, echo)
        let failures = UncheckedPort()
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 20) { client in
            guard let connection = try? TestClient(port: port) else {
                lock.withLock { failures.value += 1 }
                return
            }
            let lines = (0..<1000).map { "c\(client)-\($0)" }
            connection.send(lines.joined(separator: "\n") + "\n")
            let replies = connection.readLines(1000)
            if replies != lines.map({ "echo:" + $0 }) { lock.withLock { failures.value += 1 } }
        }
        #expect(failures.value == 0)
        loop.shutdownAndWait()
        #expect(loop.lastCloseResult == 0)
    }

    @Test("writing to a peer that has gone fails and closes the connection; SIGPIPE does not end the process")
    func peerGone() async {
        await #expect(processExitsWith: .success) {
            // The default disposition, as in a program that never touched SIGPIPE.
            signal(SIGPIPE, SIG_DFL)
            exit(writeUntilThePeerIsGone() ? 0 : 1)
        }
    }

    @Test("run() blocks SIGPIPE on its thread while the loop runs and restores the thread's mask afterwards")
    func sigpipeMaskIsRestored() throws {
        let loop = try LibUVEventLoop()
        let observed = LockedValueBox<[Bool]>([])
        let runner = try LoopThread.spawn(name: "sigpipe-mask") {
            let before = sigpipeBlocked()
            loop.run()
            observed.withLockedValue { $0 += [before, sigpipeBlocked()] }
        }
        let during = DispatchSemaphore(value: 0)
        loop.execute {
            observed.withLockedValue { $0.append(sigpipeBlocked()) }
            during.signal()
        }
        #expect(during.waitPatiently())
        loop.shutdown()
        runner.join()
        // During the run, before it, after it.
        #expect(observed.withLockedValue { $0 } == [true, false, false])
    }

    @Test("a port outside 0...65535 throws EINVAL instead of trapping or binding a truncated port", arguments: [-1, 65_536, 1 << 40])
    func portOutOfRange(port: Int) throws {
        let loop = try LibUVEventLoop.startThread(name: "stream-range")
        let result = UncheckedPort()
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            do {
                _ = try StreamListener.tcp(host: "127.0.0.1", port: port, on: loop) { _ in }
            } catch let error as LibUVEventLoopError {
                result.value = error.name == "EINVAL" ? 1 : 2
            } catch {
                result.value = 3
            }
            done.signal()
        }
        done.wait()
        #expect(result.value == 1)
        loop.shutdownAndWait()
    }

    @Test("binding a port in use throws EADDRINUSE instead of crashing")
    func portInUse() throws {
        let loop = try LibUVEventLoop.startThread(name: "stream-inuse")
        let echo = LineEcho()
        let port = try listen(loop, echo)
        let result = UncheckedPort()
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            do {
                _ = try StreamListener.tcp(host: "127.0.0.1", port: port, on: loop) { _ in }
            } catch let error as LibUVEventLoopError {
                result.value = error.name == "EADDRINUSE" ? 1 : 2
            } catch {
                result.value = 3
            }
            done.signal()
        }
        done.wait()
        #expect(result.value == 1)
        loop.shutdownAndWait()
        #expect(loop.lastCloseResult == 0)
    }
}

final class UncheckedPort: @unchecked Sendable {
    // Safety: written before a semaphore signal (or under a lock) and read after.
    var value = 0
}

/// A client connects and closes without reading; the server keeps writing to it: the first write
/// makes the peer answer with a reset, a later one fails with `EPIPE` (raising SIGPIPE unless the
/// loop blocks it). Returns whether a write failed and the connection then closed.
private func writeUntilThePeerIsGone() -> Bool {
    guard let loop = try? LibUVEventLoop.startThread(name: "stream-gone") else { return false }
    defer { loop.shutdownAndWait() }
    let accepted = DispatchSemaphore(value: 0)
    let closed = DispatchSemaphore(value: 0)
    let state = UnsafeTransfer(value: ConnectionSlot())
    let listening = DispatchSemaphore(value: 0)
    let port = UncheckedPort()
    loop.execute {
        let listener = try? StreamListener.tcp(host: "127.0.0.1", port: 0, on: loop) { connection in
            connection.onClose = { closed.signal() }
            state.value.connection = connection
            accepted.signal()
        }
        state.value.listener = listener
        port.value = listener?.port ?? 0
        listening.signal()
    }
    listening.wait()
    do {
        // The client closes at the end of this scope without reading.
        guard port.value > 0, let client = try? TestClient(port: port.value) else { return false }
        guard accepted.waitPatiently() else { return false }
        withExtendedLifetime(client) {}
    }
    let failed = UncheckedPort()
    for _ in 0..<1_000 where failed.value == 0 {
        let written = DispatchSemaphore(value: 0)
        loop.execute {
            guard let connection = state.value.connection else {
                failed.value = 2
                written.signal()
                return
            }
            connection.write(Array("reply\n".utf8)) { error in
                if error != nil { failed.value = 1 }
                written.signal()
            }
        }
        guard written.waitPatiently() else { return false }
    }
    return failed.value == 1 && closed.waitPatiently()
}

/// The loop-confined objects of ``writeUntilThePeerIsGone()``.
private final class ConnectionSlot {
    var listener: StreamListener?
    var connection: StreamConnection?
}

/// Whether SIGPIPE is blocked on the calling thread.
private func sigpipeBlocked() -> Bool {
    var current = sigset_t()
    pthread_sigmask(SIG_BLOCK, nil, &current)
    return sigismember(&current, SIGPIPE) == 1
}
