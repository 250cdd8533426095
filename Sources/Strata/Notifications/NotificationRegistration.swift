import StrataNotify

/// One notification block registered on a Realm: its notifier, and how to deliver what the
/// notifier computed.
final class NotificationRegistration {
    let notifier: any AnyNotifier
    /// Takes the notifier's pending change at the given version and calls the user's block.
    private var deliver: ((UInt64) -> Void)?
    private weak var state: RealmState?

    init(notifier: any AnyNotifier, state: RealmState, deliver: @escaping (UInt64) -> Void) {
        self.notifier = notifier
        self.state = state
        self.deliver = deliver
    }

    var isInvalidated: Bool { deliver == nil }

    /// Calls the block with the change computed for `version`, if any.
    func deliver(at version: UInt64) {
        deliver?(version)
    }

    /// Unregisters; the block is never called again.
    func invalidate() {
        guard deliver != nil else { return }
        deliver = nil
        state?.remove(self)
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
