import Foundation
import StrataEngine
import StrataEventLoop
@testable import StrataNotify
@_spi(StrataDaemon) import StrataSupport
import StrataTestSupport
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

/// A computer whose initial state waits for `gate` (after signalling `entered`).
private struct GatedInitialComputer: ChangeComputer {
    let entered: DispatchSemaphore
    let gate: DispatchSemaphore

    func initialState(at snapshot: Snapshot) -> Int {
        entered.signal()
        gate.wait()
        return 0
    }

    func advance(_ state: Int, from old: Snapshot, to new: Snapshot, changes: CombinedChanges) -> (Int, Int?) {
        (state, nil)
    }
}

/// A computer that counts the versions it reached (its state is the newest row count).
private struct CountingComputer: ChangeComputer {
    let table: TableKey

    func initialState(at snapshot: Snapshot) -> Int { snapshot.table(table)?.count ?? 0 }

    func advance(_ state: Int, from old: Snapshot, to new: Snapshot, changes: CombinedChanges) -> (Int, Int?) {
        let count = new.table(table)?.count ?? 0
        return (count, count == state ? nil : count)
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

    @Test("a budgeted initial state is computed beside the worker: while it runs, another notifier's change is still computed; then it is brought to the newest version")
    func initialComputedAside() throws {
        let store = try Store.open(StoreConfiguration(location: .inMemory(identifier: UUID().uuidString)))
        let table = try store.write { try $0.createTable(TableSchema(name: "T", columns: [ColumnSchema("n", .int)])) }
        let hub = NotifierHub.hub(for: store)
        let target = NotificationTarget(scheduler: DispatchQueueScheduler(queue: DispatchQueue(label: "aside-test")))
        let counting = Notifier(CountingComputer(table: table))
        hub.register(counting, target: target)
        defer { hub.unregister(counting) }
        #expect(waitUntil(timeout: 30) { counting.pendingVersion != nil })
        _ = counting.takeDelivery(at: try #require(counting.pendingVersion))

        // Timeline: the budgeted notifier's initial state starts and waits for the gate; a commit
        // lands meanwhile and the counting notifier's change must be computed; then the gate opens.
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let gated = Notifier(GatedInitialComputer(entered: entered, gate: gate))
        gated.limitCost(ComputeBudget(perChange: .seconds(30), initial: .seconds(30)) { overrun in
            Issue.record("unexpected overrun \(overrun)")
        })
        hub.register(gated, target: target)
        defer { hub.unregister(gated) }
        #expect(entered.wait(timeout: .now() + 30) == .success)
        try store.write { _ = try $0.insertObject(into: table, values: [.int(1)]) }
        let committed = store.currentVersion
        let computed = waitUntil(timeout: 5) { counting.pendingVersion == committed }
        gate.signal()
        #expect(computed, "the change waited for the budgeted initial state")
        #expect(waitUntil(timeout: 30) { gated.pendingVersion == committed })
        guard case .initial? = gated.takeDelivery(at: committed) else {
            Issue.record("no initial state at the newest version")
            return
        }
    }
}
