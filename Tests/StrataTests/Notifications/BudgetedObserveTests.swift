import Foundation
@_spi(StrataDaemon) @testable import Strata
import StrataEngine
import StrataEventLoop
import StrataNotify
@_spi(StrataDaemon) import StrataSupport
import StrataTestSupport
import Testing

/// A computer whose initial state, computed off `loop` (on the notifier worker), waits for
/// `gate` (after signalling `entered`): it holds the worker inside a pass.
private struct GatedComputer: ChangeComputer {
    let loop: LibUVEventLoop
    let entered: DispatchSemaphore
    let gate: DispatchSemaphore

    func initialState(at snapshot: Snapshot) -> Int {
        if !loop.inEventLoop {
            entered.signal()
            gate.wait()
        }
        return 0
    }

    func advance(_ state: Int, from old: Snapshot, to new: Snapshot, changes: CombinedChanges) -> (Int, Int?) {
        (state, nil)
    }
}

@Suite("Observing with a compute budget")
struct BudgetedObserveTests {
    @Test("a budgeted observer's initial result is computed by the notifier hub only, never by a delivery on the Realm's thread (a service's event loop)")
    func initialComputedOnTheWorkerOnly() throws {
        let fixture = try NotificationFixture()
        try fixture.write { realm in realm.add(NoteDog(value: ["id": 1, "name": "Rex", "age": 3] as [String: Any])) }
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let overruns = LockedValueBox<[(isInitial: Bool, onLoop: Bool)]>([])
        let loop = fixture.harness.loop
        // Timeline: the worker enters a pass and waits in the gated initial state (a notifier of
        // the hub's alone, which no delivery on the loop computes); meanwhile the loop registers a
        // budgeted observer and delivers; then the gate opens and the hub computes the
        // observer's initial result (over its 1 ns budget: recorded).
        let hub = try fixture.harness.run { NotifierHub.hub(for: try fixture.realm().store) }
        let gated = Notifier(GatedComputer(loop: loop, entered: entered, gate: gate))
        let target = NotificationTarget(scheduler: DispatchQueueScheduler(queue: DispatchQueue(label: "gated")))
        hub.register(gated, target: target)
        defer { hub.unregister(gated) }
        #expect(entered.wait(timeout: .now() + 30) == .success)
        let token = try fixture.harness.run {
            let realm = try fixture.realm()
            let budget = ComputeBudget(perChange: .seconds(10), initial: .nanoseconds(1)) { overrun in
                overruns.withLockedValue { $0.append((overrun.isInitial, loop.inEventLoop)) }
            }
            let token = try realm.objects(NoteDog.self).observe(validatingKeyPaths: nil, budget: budget) { change in
                Issue.record("delivered \(describe(change)) despite a 1 ns budget")
            }
            realm.deliverNotifications(advancingTo: nil)
            return token
        }
        gate.signal()
        #expect(waitUntil(timeout: 30) { !overruns.withLockedValue { $0 }.isEmpty })
        let seen = overruns.withLockedValue { $0 }
        #expect(seen.count == 1 && seen.allSatisfy { $0.isInitial && !$0.onLoop }, "\(seen)")
        fixture.harness.run { token.invalidate() }
    }
}
