import Testing
@testable import StrataEngine
import StrataSupport

/// Counter: 0 id (int).
private let counterSchema = TableSchema(name: "Counter", columns: [ColumnSchema("id", .int)])

/// Every pin counts against `maximumNumberOfActiveVersions`, also the ones that cannot fail.
@Suite("Active version limit")
struct ActiveVersionLimitTests {
    @Test("pins that cannot fail (notifiers, frozen versions) still count: past the limit no write begins")
    func uncheckedPinsBlockWrites() throws {
        let store = try Store.open(StoreConfiguration(
            location: .inMemory(identifier: uniqueMemoryIdentifier()), maximumNumberOfActiveVersions: 3))
        let counters = try store.write { tx in try tx.createTable(counterSchema) }
        var held: [PinnedSnapshot] = []
        var refusal: StrataError?
        for id in 0..<20 {
            // A notifier pins each new version, a frozen Realm holds it again.
            let pin = store.pinForNotifier()
            held.append(store.pin(again: pin))
            held.append(pin)
            #expect(store.statistics.pinnedVersions <= 4, "versions stay within the limit plus the newest")
            do {
                try store.write { tx in _ = try tx.insertObject(into: counters, values: [.int(Int64(id))]) }
            } catch let error as StrataError {
                refusal = error
                break
            }
        }
        #expect(refusal?.code == .tooManyActiveVersions)
        #expect(refusal?.message == "Number of active versions (4) in the Realm exceeded the limit of 3")
        #expect(store.statistics.pinnedVersions == 4)
        #expect(store.currentSnapshot.table(counters)?.count == 3)

        // Releasing the oldest versions lets writes begin again.
        held.removeFirst(4)
        #expect(store.statistics.pinnedVersions == 2)
        try store.write { tx in _ = try tx.insertObject(into: counters, values: [.int(100)]) }
        #expect(store.currentSnapshot.table(counters)?.count == 4)
        withExtendedLifetime(held) {}
    }

    @Test("with no limit (nil or 0) any number of versions may be pinned and written past")
    func noLimit() throws {
        for limit in [nil, 0] as [Int?] {
            let store = try Store.open(StoreConfiguration(
                location: .inMemory(identifier: uniqueMemoryIdentifier()), maximumNumberOfActiveVersions: limit))
            let counters = try store.write { tx in try tx.createTable(counterSchema) }
            var held: [PinnedSnapshot] = []
            for id in 0..<10 {
                held.append(try store.pin())
                try store.write { tx in _ = try tx.insertObject(into: counters, values: [.int(Int64(id))]) }
            }
            #expect(store.statistics.pinnedVersions == 10)
            withExtendedLifetime(held) {}
        }
    }
}
