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

    /// Stops the notifications of this token.
    public func invalidate() {
        let action = onInvalidate
        onInvalidate = nil
        action?()
    }
}
