/// Keeps a notification block registered, as Realm Swift's `NotificationToken`; call
/// ``invalidate()`` to stop it.
///
/// Invalidation is idempotent; once invalidated a token never delivers again. As in Realm, a
/// collection, map or object observer stops when its token is released, so keep the token for as
/// long as you want notifications; a `Realm.observe` block stays registered until invalidated.
public class NotificationToken {
    private var onInvalidate: (() -> Void)?

    init(onInvalidate: @escaping () -> Void) {
        self.onInvalidate = onInvalidate
    }

    /// Whether ``invalidate()`` was called.
    public var isInvalidated: Bool { onInvalidate == nil }

    /// Holds the notifier worker's computation of each change for this token to `budget` of
    /// CPU time, for services that must not let one observer starve the others: past it (the
    /// query gives up early where it can), the change is dropped, the token delivers nothing
    /// more, and `onExceeded` runs on the worker thread with the time spent; invalidate the
    /// token then. The initial result is not held to the budget. Does nothing for tokens
    /// without a notifier of their own (`Realm.observe`). Not part of Realm's API.
    package func limitComputeCost(to budget: Duration, onExceeded: @escaping @Sendable (_ cpuTime: Duration) -> Void) {}

    /// Stops the notifications of this token.
    public func invalidate() {
        let action = onInvalidate
        onInvalidate = nil
        action?()
    }
}
