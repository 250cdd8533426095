import Foundation
import StrataEngine
import StrataSupport
import Testing

@Suite("Publish observers")
struct PublishObserverTests {
    @Test("observers are called after each commit, in registration order, and not after removal")
    func registrationOrder() throws {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
        let calls = LockedValueBox<[Int]>([])
        var ids: [Int] = []
        for index in 0..<16 {
            ids.append(store.addPublishObserver { _ in calls.withLockedValue { $0.append(index) } })
        }
        try store.write { _ = try $0.insertObject(into: table, values: [.int(1)]) }
        #expect(calls.withLockedValue { $0 } == Array(0..<16))
        store.removePublishObserver(ids[3])
        calls.withLockedValue { $0.removeAll() }
        try store.write { _ = try $0.insertObject(into: table, values: [.int(2)]) }
        #expect(calls.withLockedValue { $0 } == Array(0..<16).filter { $0 != 3 })
    }
}
