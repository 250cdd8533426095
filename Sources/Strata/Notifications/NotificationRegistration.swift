import StrataEventLoop
import StrataNotify
import Synchronization

/// One notification block registered on a Realm: its notifier, and how to deliver what the
/// notifier computed.
///
/// Invalidation may come from any thread (a token invalidated or released elsewhere, as Realm
/// allows): it sets a flag deliveries check, and the registration leaves the Realm's list on the
/// Realm's own scheduler, where the list is read.
final class NotificationRegistration {
    let notifier: any AnyNotifier
    /// Takes the notifier's pending change at the given version and calls the user's block;
    /// touched only where the Realm lives.
    private var deliver: ((UInt64) -> Void)?
    private weak var state: RealmState?
    private let invalidated = Atomic<Bool>(false)

    init(notifier: any AnyNotifier, state: RealmState, deliver: @escaping (UInt64) -> Void) {
        self.notifier = notifier
        self.state = state
        self.deliver = deliver
    }

    var isInvalidated: Bool { invalidated.load(ordering: .acquiring) }

    /// Calls the block with the change computed for `version`, if any.
    func deliver(at version: UInt64) {
        guard !isInvalidated else { return }
        deliver?(version)
    }

    /// Unregisters; the block is not called again once this returns (on the Realm's thread) or
    /// once a delivery already running on it returns (on another thread).
    func invalidate() {
        guard !invalidated.exchange(true, ordering: .acquiringAndReleasing), let state else { return }
        guard let scheduler = state.scheduler, !state.isOnOwningThreadWithoutTrapping else {
            deliver = nil
            state.remove(self)
            return
        }
        let handoff = Handoff(registration: self, state: state)
        scheduler.schedule {
            handoff.registration.deliver = nil
            handoff.state.remove(handoff.registration)
        }
    }

    /// Carries the registration and its Realm's state to the Realm's scheduler.
    private struct Handoff: @unchecked Sendable {
        // Safety: used only inside the closure the state's own scheduler runs.
        let registration: NotificationRegistration
        let state: RealmState
    }
}

/// The token of a collection, map or object observer: invalidating it, or releasing it,
/// stops the notifications (Realm's tokens unregister when they are deallocated).
final class RegistrationToken: NotificationToken {
    let registration: NotificationRegistration

    init(_ registration: NotificationRegistration) {
        self.registration = registration
        super.init { [registration] in registration.invalidate() }
    }

    override package func limitComputeCost(to budget: Duration,
                                           onExceeded: @escaping @Sendable (_ cpuTime: Duration) -> Void) {
        registration.notifier.limitCost(to: budget, onExceeded: onExceeded)
    }

    deinit { registration.invalidate() }
}
