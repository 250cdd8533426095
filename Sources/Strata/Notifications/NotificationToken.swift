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

    /// Calls `observer` on the notifier's worker thread after each computation for this token
    /// (its initial result, or one change whether or not it is delivered) with the CPU time it
    /// took and whether it was the initial result, for services that hold each observer to a
    /// budget: returning false stops the computations at once (then invalidate the token). Does
    /// nothing for tokens without a notifier of their own (`Realm.observe`). Not part of
    /// Realm's API.
    package func observeComputeCost(_ observer: @escaping @Sendable (_ cpuTime: Duration, _ isInitial: Bool) -> Bool) {}

    /// Stops the notifications of this token.
    public func invalidate() {
        let action = onInvalidate
        onInvalidate = nil
        action?()
    }
}
