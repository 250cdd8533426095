import Foundation
import StrataEngine
@testable import StrataNotify
import StrataSupport
import Testing

/// A computer whose change computation burns CPU until the deadline says stop (or a bound).
private struct SpinningComputer: ChangeComputer {
    /// Iterations before it gives up by itself (so a broken deadline fails the test, not hangs it).
    let bound: Int

    func initialState(at snapshot: Snapshot) -> Int { 0 }

    func advance(_ state: Int, from old: Snapshot, to new: Snapshot, changes: CombinedChanges) -> (Int, Int?) {
        var spins = 0
        while spins < bound, !CPUDeadline.hasPassed { spins += 1 }
        return (spins, spins)
    }
}

@Suite("Notifier cost budget")
struct NotifierBudgetTests {
    @Test("a change computation over its CPU budget gives up at the deadline, is dropped, and stops the notifier")
    func overBudgetStops() throws {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
        let notifier = Notifier(SpinningComputer(bound: 2_000_000_000))
        let exceeded = LockedValueBox<[Duration]>([])
        notifier.limitCost(to: .milliseconds(20)) { cost in exceeded.withLockedValue { $0.append(cost) } }

        // The initial state is not held to the budget.
        let first = store.pinForNotifier()
        notifier.prepare(to: first, store: store)
        guard case .initial? = notifier.takeDelivery(at: first.version) else {
            Issue.record("no initial delivery")
            return
        }
        try store.write { _ = try $0.insertObject(into: table, values: [.int(1)]) }
        let second = store.pinForNotifier()
        notifier.prepare(to: second, store: store)

        let costs = exceeded.withLockedValue { $0 }
        #expect(costs.count == 1)
        #expect(costs.allSatisfy { $0 >= .milliseconds(20) && $0 < .seconds(1) }, "\(costs)")
        #expect(notifier.pendingVersion == nil && notifier.takeDelivery(at: second.version) == nil)
        // Stopped for good: later versions are not computed.
        try store.write { _ = try $0.insertObject(into: table, values: [.int(2)]) }
        notifier.prepare(to: store.pinForNotifier(), store: store)
        #expect(notifier.pendingVersion == nil && exceeded.withLockedValue { $0.count } == 1)
    }

    @Test("within the budget, changes are delivered as usual")
    func withinBudgetDelivers() throws {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
        let notifier = Notifier(SpinningComputer(bound: 10))
        notifier.limitCost(to: .seconds(10)) { _ in Issue.record("over a 10 s budget") }
        let first = store.pinForNotifier()
        notifier.prepare(to: first, store: store)
        _ = notifier.takeDelivery(at: first.version)
        try store.write { _ = try $0.insertObject(into: table, values: [.int(1)]) }
        let second = store.pinForNotifier()
        notifier.prepare(to: second, store: store)
        guard case .change(let spins, _, _, _)? = notifier.takeDelivery(at: second.version) else {
            Issue.record("no change delivered")
            return
        }
        #expect(spins == 10)
    }
}
