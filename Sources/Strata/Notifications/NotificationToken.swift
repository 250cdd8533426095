/// Keeps a notification block registered, as Realm Swift's `NotificationToken`; call
/// ``invalidate()`` to stop it.
///
/// Invalidation is idempotent; once invalidated a token never delivers again. Releasing the token
/// without invalidating it keeps the registration alive (as in Realm), so keep it and invalidate it.
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
