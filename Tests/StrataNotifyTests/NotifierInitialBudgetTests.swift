import Foundation
import StrataEngine
@testable import StrataNotify
import StrataSupport
import Testing

/// A computer whose initial state burns CPU until the deadline says stop (or a bound).
private struct SpinningInitialComputer: ChangeComputer {
    /// Iterations before it gives up by itself (so a broken deadline fails the test, not hangs it).
    let bound: Int

    func initialState(at snapshot: Snapshot) -> Int {
        var spins = 0
        while spins < bound, !CPUDeadline.hasPassed { spins += 1 }
        return spins
    }

    func advance(_ state: Int, from old: Snapshot, to new: Snapshot, changes: CombinedChanges) -> (Int, Int?) {
        (state, nil)
    }
}

@Suite("Notifier cost budget of the initial state")
struct NotifierInitialBudgetTests {
    @Test("an initial state over its own budget gives up at the deadline, is dropped, stops the notifier and says it was the initial one")
    func initialOverBudgetStops() throws {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
        let notifier = Notifier(SpinningInitialComputer(bound: 2_000_000_000))
        let overruns = LockedValueBox<[ComputeOverrun]>([])
        notifier.limitCost(ComputeBudget(perChange: .seconds(10), initial: .milliseconds(20)) { overrun in
            overruns.withLockedValue { $0.append(overrun) }
        })
        let first = store.pinForNotifier()
        notifier.prepare(to: first, store: store)

        let seen = overruns.withLockedValue { $0 }
        #expect(seen.count == 1)
        #expect(seen.allSatisfy { $0.isInitial && $0.limit == .milliseconds(20) }, "\(seen)")
        #expect(seen.allSatisfy { $0.cpuTime >= .milliseconds(20) && $0.cpuTime < .seconds(1) }, "\(seen)")
        #expect(notifier.pendingVersion == nil && notifier.takeDelivery(at: first.version) == nil)
        // Stopped for good: a later version is not computed either.
        try store.write { _ = try $0.insertObject(into: table, values: [.int(1)]) }
        notifier.prepare(to: store.pinForNotifier(), store: store)
        #expect(notifier.pendingVersion == nil && overruns.withLockedValue { $0.count } == 1)
    }

    @Test("without an initial limit the initial state is computed in full; within it, it is delivered")
    func initialWithinBudgetDelivers() throws {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        for initial in [nil, Duration.seconds(10)] {
            let notifier = Notifier(SpinningInitialComputer(bound: 1_000))
            notifier.limitCost(ComputeBudget(perChange: .nanoseconds(1), initial: initial) { overrun in
                Issue.record("unexpected overrun \(overrun)")
            })
            let pin = store.pinForNotifier()
            notifier.prepare(to: pin, store: store)
            guard case .initial(let spins)? = notifier.takeDelivery(at: pin.version) else {
                Issue.record("no initial delivery with initial budget \(String(describing: initial))")
                continue
            }
            #expect(spins == 1_000)
        }
    }
}
