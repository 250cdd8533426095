import Foundation
import StrataEngine
import StrataSupport

/// The notifier worker of one store: after every published commit it brings each registered
/// notifier up to the new version on a background thread, then asks each Realm's
/// ``NotificationTarget`` to deliver.
///
/// Change sets are computed here, not on the committing thread and not on the delivering one.
/// The worker thread runs while something is registered and exits when nothing is.
package final class NotifierHub: @unchecked Sendable {
    // Safety: mutable state is inside `state`; `store` is weak and only read.

    private weak var store: Store?
    private let state = LockedValueBox(HubState())
    private var observerID: Int?

    private struct HubState {
        var notifiers: [ObjectIdentifier: (notifier: any AnyNotifier, target: NotificationTarget)] = [:]
        var targets: [ObjectIdentifier: (target: NotificationTarget, count: Int)] = [:]
        var requested: UInt64 = 0
        var processed: UInt64 = 0
        var dirty = false
        var running = false
        /// The version the worker last prepared, pinned.
        var latest: PinnedSnapshot?
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

    /// Stops computing for `notifier`.
    package func unregister(_ notifier: any AnyNotifier) {
        state.withLockedValue { state in
            guard let entry = state.notifiers.removeValue(forKey: ObjectIdentifier(notifier)) else { return }
            releaseTarget(entry.target, in: &state)
        }
        state.broadcast()
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

    /// Balances ``retainTarget(_:)``.
    package func releaseTarget(_ target: NotificationTarget) {
        state.withLockedValue { releaseTarget(target, in: &$0) }
        state.broadcast()
    }

    private func releaseTarget(_ target: NotificationTarget, in state: inout HubState) {
        let id = ObjectIdentifier(target)
        guard let entry = state.targets[id] else { return }
        state.targets[id] = entry.count > 1 ? (entry.target, entry.count - 1) : nil
    }

    private func noteCommit(_ version: UInt64) {
        let wake = state.withLockedValue { state -> Bool in
            state.requested = max(state.requested, version)
            return state.running
        }
        if wake { state.broadcast() }
    }

    private func startIfNeeded(_ state: inout HubState) {
        guard !state.running else { return }
        state.running = true
        let thread = Thread { [self] in runWorker() }
        thread.name = "strata-notifier"
        thread.start()
    }

    private func runWorker() {
        while true {
            let work = state.wait(until: { $0.dirty || $0.requested > $0.processed || $0.targets.isEmpty }) { state in
                if state.targets.isEmpty && state.notifiers.isEmpty {
                    state.running = false
                    state.latest = nil
                    return nil as (notifiers: [any AnyNotifier], targets: [NotificationTarget])?
                }
                state.dirty = false
                return (state.notifiers.values.map(\.notifier), state.targets.values.map(\.target))
            }
            guard let work, let store else { return }
            let pin = store.pinForNotifier()
            // A version is prepared only once the hub's publish observer has run for it: the
            // store's publish observers run in registration order, so no notification is
            // delivered before an observer registered ahead of the hub (a commit clock, say) has
            // seen the commit. The pin may be ahead when the worker woke for an earlier version.
            state.wait(until: { $0.requested >= pin.version || ($0.targets.isEmpty && $0.notifiers.isEmpty) }) { _ in }
            for notifier in work.notifiers { notifier.prepare(to: pin, store: store) }
            let advanced = state.withLockedValue { state -> Bool in
                state.processed = max(state.processed, pin.version)
                defer { state.latest = pin }
                return state.latest?.version != pin.version
            }
            for target in work.targets {
                if advanced || !work.notifiers.isEmpty { target.requestDelivery() }
            }
        }
    }
}
