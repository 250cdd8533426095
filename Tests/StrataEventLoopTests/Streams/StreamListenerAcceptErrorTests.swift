#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import StrataSupport
@_spi(StrataDaemon) @testable import StrataEventLoop
import Testing

/// What the listener does when libuv passes on an accept that failed for lack of descriptors
/// (`EMFILE` once libuv's own reserve descriptor is gone): libuv would accept again at once while
/// clients wait, so the listener closes them with its spare descriptor instead of letting the
/// loop spin, reports the error, and goes on accepting.
@Suite("Stream listener: accepts that fail for lack of descriptors")
struct StreamListenerAcceptErrorTests {
    @Test("EMFILE from accept closes the clients waiting, is reported, and the listener accepts the next client")
    func emfileClosesWaitingClients() throws {
        let loop = try LibUVEventLoop.startThread(name: "stream-emfile")
        let echo = LineEcho()
        let errors = LockedValueBox<[String]>([])
        let port = UncheckedPort()
        let ready = DispatchSemaphore(value: 0)
        loop.execute {
            if let listener = try? StreamListener.tcp(host: "127.0.0.1", port: 0, on: loop, accept: { echo.attach($0) }) {
                listener.onAcceptError = { error in errors.withLockedValue { $0.append(error.name) } }
                echo.listeners.append(listener)
                port.value = listener.port
            }
            ready.signal()
        }
        #expect(ready.waitPatiently())
        try #require(port.value > 0)

        // Timeline: the loop holds at the gate, so the clients wait in the listen backlog; then it
        // meets EMFILE as libuv would report it, before it may accept them.
        let held = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let handled = DispatchSemaphore(value: 0)
        loop.execute {
            held.signal()
            _ = gate.waitPatiently()
            echo.listeners.first?.acceptFailed(-EMFILE)
            handled.signal()
        }
        #expect(held.waitPatiently())
        let waiting = try (0..<3).map { _ in try TestClient(port: port.value) }
        for client in waiting { client.send("hello\n") }
        gate.signal()
        #expect(handled.waitPatiently())
        for client in waiting { #expect(client.readLines(1) == [""], "a waiting client was served") }
        #expect(errors.withLockedValue { $0 } == ["EMFILE"])

        let next = try TestClient(port: port.value)
        next.send("after\n")
        #expect(next.readLines(1) == ["echo:after"])
        loop.shutdownAndWait()
        #expect(loop.lastCloseResult == 0)
    }
}
