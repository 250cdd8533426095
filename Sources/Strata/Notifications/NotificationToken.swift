import StrataSupport

/// Keeps a notification block registered, as Realm Swift's `NotificationToken`; call
/// ``invalidate()`` to stop it.
///
/// Invalidation is idempotent; once invalidated a token never delivers again. As in Realm, a
/// collection, map or object observer stops when its token is released, so keep the token for as
/// long as you want notifications; a `Realm.observe` block stays registered until invalidated.
/// As in Realm, a collection, map or object token may be invalidated (or released) on any
/// thread; a `Realm.observe` token on the Realm's own.
public class NotificationToken {
    // Safety: the closure runs once, on the thread that invalidates; the box serializes the
    // hand-over when two threads invalidate at once.
    private let onInvalidate: LockedValueBox<(() -> Void)?>

    init(onInvalidate: @escaping () -> Void) {
        self.onInvalidate = LockedValueBox(onInvalidate)
    }

    /// Whether ``invalidate()`` was called.
    public var isInvalidated: Bool { onInvalidate.withLockedValue { $0 == nil } }

    /// Holds the notifier worker's computation of each change for this token to `budget` of
    /// CPU time, for services that must not let one observer starve the others: past it (the
    /// query gives up early where it can), the change is dropped, the token delivers nothing
    /// more, and `onExceeded` runs on the worker thread with the time spent; invalidate the
    /// token then. The initial result is not held to the budget (pass a budget to
    /// `observe(keyPaths:budget:_:)` for that: it is set before registration). Does nothing for tokens
    /// without a notifier of their own (`Realm.observe`). Not part of Realm's API.
    package func limitComputeCost(to budget: Duration, onExceeded: @escaping @Sendable (_ cpuTime: Duration) -> Void) {}

    /// Stops the notifications of this token.
    public func invalidate() {
        let action = onInvalidate.withLockedValue { action in
            defer { action = nil }
            return action
        }
        action?()
    }
}
