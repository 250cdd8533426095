import Foundation
import StrataEngine
import StrataSupport
import Synchronization

/// The notifier worker of one store: after every published commit it brings each registered
/// notifier up to the new version on a background thread, then asks each Realm's
/// ``NotificationTarget`` to deliver.
///
/// Change sets are computed here, not on the committing thread and not on the delivering one.
/// The worker thread runs while something is registered and exits when nothing is.
///
/// The hub keeps its store alive only while something is registered: when the last
/// registration goes, ``unregister(_:)`` / ``releaseTarget(_:)`` wait for a pass the worker is in
/// to end and drop the hub's pinned version before they return, so closing a store's last Realm
/// closes the store there and then (a new Realm opens it afresh; `Realm.deleteFiles(for:)` may
/// run) instead of whenever the worker thread next wakes.
package final class NotifierHub: @unchecked Sendable {
    /// What the worker's pins are held by, for the store's statistics.
    static let workerHolder = PinHolder(.notifier, "the notifier worker, preparing change notifications")

    // Safety: mutable state is inside `state` or atomic; `store` is weak and only read.

    private weak var store: Store?
    private let state = LockedValueBox(HubState())
    private var observerID: Int?
    /// The newest version the hub's publish observer has announced. Kept outside `state` so that
    /// a commit announces itself without the hub's lock, which the worker holds now and then: a
    /// committing thread that found it held slept on it, and on two cores each such commit took
    /// about twice as long.
    private let requested = Atomic<UInt64>(0)
    /// How many workers are waiting, or about to, for work or for an announcement: only then does
    /// a commit wake them (see ``noteCommit(_:)``). A count, not a flag: a worker that is exiting
    /// may still be leaving its wait when the next one starts waiting.
    private let waitingWorkers = Atomic<Int>(0)
    /// Where budgeted notifiers' initial states are computed, one at a time, beside the worker
    /// (see `computeInitialAside`).
    private let initialQueue = DispatchQueue(label: "strata-notifier-initial")

    private struct HubState {
        var notifiers: [ObjectIdentifier: (notifier: any AnyNotifier, target: NotificationTarget)] = [:]
        var targets: [ObjectIdentifier: (target: NotificationTarget, count: Int)] = [:]
        var processed: UInt64 = 0
        var dirty = false
        var running = false
        /// Whether the worker is in a pass (between taking its work and releasing everything
        /// the pass referenced: the store, the notifiers, the targets, the new pin).
        var inPass = false
        /// The worker thread, while it runs.
        var worker: ObjectIdentifier?
        /// The version the worker last prepared, pinned.
        var latest: PinnedSnapshot?

        var isEmpty: Bool { targets.isEmpty && notifiers.isEmpty }
    }

    private init(store: Store) {
        self.store = store
    }

    /// The hub of `store`, created on first use.
    package static func hub(for store: Store) -> NotifierHub {
        let hub = store.attachment("io.strata.notifier-hub") {
            let hub = NotifierHub(store: store)
            hub.observerID = store.addPublishObserver { [weak hub] version in hub?.noteCommit(version) }
            return hub
        }
        // Versions published before the hub's observer was added are announced here; later ones
        // by the observer.
        hub.noteCommit(store.currentSnapshot.version)
        return hub
    }

    /// The newest version the worker has prepared notifiers for, pinned.
    package var latestPrepared: PinnedSnapshot? { state.withLockedValue { $0.latest } }

    /// Registers `notifier`, delivered through `target`; the worker computes its initial state.
    package func register(_ notifier: any AnyNotifier, target: NotificationTarget) {
        state.withLockedValue { state in
            state.notifiers[ObjectIdentifier(notifier)] = (notifier, target)
            state.targets[ObjectIdentifier(target), default: (target, 0)].count += 1
            state.dirty = true
            startIfNeeded(&state)
        }
        state.broadcast()
    }

    /// Stops computing for `notifier`; when nothing else is registered, returns once the hub no
    /// longer references the store.
    package func unregister(_ notifier: any AnyNotifier) {
        let removed = state.withLockedValue { state -> (any AnyNotifier, NotificationTarget)? in
            guard let entry = state.notifiers.removeValue(forKey: ObjectIdentifier(notifier)) else { return nil }
            releaseTarget(entry.target, in: &state)
            return entry
        }
        state.broadcast()
        if removed != nil { letGoIfEmpty() }
    }

    /// Keeps `target` informed of every new version (Realm-level observers), until
    /// ``releaseTarget(_:)``.
    package func retainTarget(_ target: NotificationTarget) {
        state.withLockedValue { state in
            state.targets[ObjectIdentifier(target), default: (target, 0)].count += 1
            state.dirty = true
            startIfNeeded(&state)
        }
        state.broadcast()
    }

    /// Balances ``retainTarget(_:)``; when nothing else is registered, returns once the hub no
    /// longer references the store.
    package func releaseTarget(_ target: NotificationTarget) {
        state.withLockedValue { releaseTarget(target, in: &$0) }
        state.broadcast()
        letGoIfEmpty()
    }

    /// When nothing is registered: waits for a pass the worker is in to end (it holds the store,
    /// the notifiers and a new pin until then), then releases the hub's pinned version. Pins are
    /// released under the hub's lock, by whichever thread drops them (the worker when it exits
    /// too), so once this returns no release of the store is still under way elsewhere. Not on
    /// the worker thread itself (a pass can release a Realm), which would wait for itself.
    private func letGoIfEmpty() {
        let me = ObjectIdentifier(Thread.current)
        state.wait(until: { !$0.isEmpty || !$0.inPass || $0.worker == me }) { state in
            if state.isEmpty, !state.inPass { state.latest = nil }
        }
    }

    private func releaseTarget(_ target: NotificationTarget, in state: inout HubState) {
        let id = ObjectIdentifier(target)
        guard let entry = state.targets[id] else { return }
        state.targets[id] = entry.count > 1 ? (entry.target, entry.count - 1) : nil
    }

    /// Announces `version` to the worker.
    ///
    /// The announcement is an atomic store; the worker is woken (under the hub's lock) only when
    /// it may be waiting. The worker counts itself in `waitingWorkers` before it checks for
    /// announcements and this stores the version before it reads `waitingWorkers`, both
    /// sequentially consistent, so either the worker's check sees the version or this sees the
    /// count and wakes it.
    private func noteCommit(_ version: UInt64) {
        requested.max(version, ordering: .sequentiallyConsistent)
        if waitingWorkers.load(ordering: .sequentiallyConsistent) > 0 { state.broadcast() }
    }

    /// Runs `body`, a wait of the worker's on `state`, counted in `waitingWorkers` (see
    /// ``noteCommit(_:)``).
    private func whileWorkerMayWait<R>(_ body: () -> R) -> R {
        waitingWorkers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { waitingWorkers.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        return body()
    }

    private func startIfNeeded(_ state: inout HubState) {
        guard !state.running else { return }
        state.running = true
        let thread = Thread { [self] in runWorker() }
        thread.name = "strata-notifier"
        thread.start()
    }

    private func runWorker() {
        state.withLockedValue { $0.worker = ObjectIdentifier(Thread.current) }
        while true {
            // Everything a pass references is released when `runPass` returns, before the pass
            // counts as over (`letGoIfEmpty` waits for that).
            guard runPass() else { return }
            state.withLockedValue { $0.inPass = false }
            state.broadcast()
        }
    }

    /// Marks the worker as gone and drops the hub's pin; the pin is released under the lock (see
    /// `letGoIfEmpty`).
    private static func stopWorker(_ state: inout HubState) {
        state.running = false
        state.inPass = false
        state.worker = nil
        state.latest = nil
    }

    /// Waits for work, then brings every notifier up to the newest published version and asks
    /// the targets to deliver; returns `false` when nothing is registered any more, or the store
    /// is gone (the worker then exits).
    private func runPass() -> Bool {
        let work = whileWorkerMayWait {
            state.wait(until: {
                $0.dirty || self.requested.load(ordering: .sequentiallyConsistent) > $0.processed || $0.isEmpty
            }) { state in
                if state.isEmpty {
                    Self.stopWorker(&state)
                    return nil as (notifiers: [any AnyNotifier], targets: [NotificationTarget])?
                }
                state.dirty = false
                state.inPass = true
                return (state.notifiers.values.map(\.notifier), state.targets.values.map(\.target))
            }
        }
        guard let work else { return false }
        guard let store else {
            // The store is gone (nothing can commit or register any more): the worker exits.
            state.withLockedValue { Self.stopWorker(&$0) }
            state.broadcast()
            return false
        }
        let pin = store.pinForNotifier(holder: Self.workerHolder)
        // A version is prepared only once the hub's publish observer has run for it: the
        // store's publish observers run in registration order, so no notification is
        // delivered before an observer registered ahead of the hub (a commit clock, say) has
        // seen the commit. The pin may be ahead when the worker woke for an earlier version.
        whileWorkerMayWait {
            state.wait(until: {
                self.requested.load(ordering: .sequentiallyConsistent) >= pin.version || $0.isEmpty
            }) { _ in }
        }
        for notifier in work.notifiers {
            if notifier.claimInitialComputation() {
                computeInitialAside(notifier, at: pin, store: store)
            } else {
                notifier.prepare(to: pin, store: store)
            }
        }
        let advanced = state.withLockedValue { state -> Bool in
            state.processed = max(state.processed, pin.version)
            defer { state.latest = pin }
            return state.latest?.version != pin.version
        }
        for target in work.targets {
            if advanced || !work.notifiers.isEmpty { target.requestDelivery() }
        }
        return true
    }

    /// Computes the initial state of a notifier whose budget limits it (it claimed the
    /// computation) on `initialQueue`, so that a costly one, up to its budget, holds back only
    /// other such initial states, not the changes every other notifier delivers; then wakes the
    /// worker, whose next pass brings it to the newest version and delivers it. The pin and the
    /// store are let go under the hub's lock, as the worker's are; a store whose last Realm
    /// closed meanwhile closes once the computation ended (within its budget).
    private func computeInitialAside(_ notifier: any AnyNotifier, at pin: PinnedSnapshot, store: Store) {
        let work = AsideInitial(notifier: notifier, pin: pin, store: store)
        initialQueue.async { [self] in
            work.run()
            state.withLockedValue { state in
                state.dirty = true
                work.letGo()
            }
            state.broadcast()
        }
    }
}

/// One initial state computed beside the worker: what it needs until it is done.
private final class AsideInitial: @unchecked Sendable {
    // Safety: `run()` and `letGo()` are called in turn by the one queue item that owns this.
    private var work: (notifier: any AnyNotifier, pin: PinnedSnapshot, store: Store)?

    init(notifier: any AnyNotifier, pin: PinnedSnapshot, store: Store) {
        work = (notifier, pin, store)
    }

    func run() {
        guard let work else { return }
        work.notifier.prepareClaimedInitial(to: work.pin, store: work.store)
    }

    /// Drops the pin and the store (under the hub's lock, like every pin of the hub).
    func letGo() { work = nil }
}
