#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Strata
@testable import StrataEventd
@testable import StrataStorage  // StorageFaults, the fault injection of the store's I/O (package access)
import StrataTestSupport
import Testing

/// A full disk under a running daemon (ENOSPC injected on the writes of its store): every event
/// acknowledged before is kept, later events are refused with `store_failed`, and the daemon
/// stops on its own within seconds (the executable then exits non-zero with one line), never
/// "up and refusing everything" forever. A restart recovers the store.
@Suite("strata-eventd on a full disk", .serialized)
struct DaemonDiskFullTests {
    @Test("when the store's log cannot be written the daemon refuses the events, keeps every acknowledged one, and stops")
    func stopsWhenTheStoreFails() throws {
        try withTemporaryDirectory(prefix: "strata-eventd-full") { directory in
            var options = DaemonOptions()
            options.port = 0
            options.dataPath = directory.file("events.strata")
            let daemon = try EventDaemon(options: options, logger: Logger(label: "disk-full-test"))
            try daemon.start()
            let client = try LineClient(port: daemon.tcpPort, timeout: DaemonProcess.patience)
            for index in 0..<20 {
                client.send(line: eventLine("before-\(index)"))
                #expect(client.readLine() == #"{"ack":"before-\#(index)"}"#)
            }

            // The disk fills: every write of the store's commit log fails with ENOSPC.
            StorageFaults.shared.inject(.fail(errno: ENOSPC), on: .write, matching: directory.name + "/events.strata.log",
                                        count: 1_000_000)
            defer { StorageFaults.shared.removeRules(matching: directory.name + "/events.strata.log") }
            client.send(line: eventLine("during"))
            let reply = client.readLine() ?? ""
            #expect(reply.contains(#""code":"store_failed""#), "\(reply)")

            let stopped = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                daemon.waitUntilStopped()
                stopped.signal()
            }
            #expect(stopped.wait(timeout: .now() + 10) == .success, "the daemon did not stop within 10 s")
            #expect(daemon.storeFailure?.contains("No space left on device") == true,
                    "\(String(describing: daemon.storeFailure))")

            // Space returns; a restart (a new Realm of the store) has every acknowledged event.
            StorageFaults.shared.removeRules(matching: directory.name + "/events.strata.log")
            let realm = try Realm(configuration: Realm.Configuration(
                fileURL: URL(fileURLWithPath: options.dataPath), objectTypes: daemonObjectTypes))
            let ids = Set(realm.objects(StoredEvent.self).map(\.id))
            #expect(ids == Set((0..<20).map { "before-\($0)" }))
            try realm.write { realm.add(StoredEvent(value: ["id": "after", "type": "login", "source": "test"])) }
        }
    }
}
