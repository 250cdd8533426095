import StrataNotify

extension Realm {
    /// What changed, for a Realm notification block, as Realm Swift's `Realm.Notification`.
    public enum Notification: String, Sendable {
        /// The Realm advanced to a new version: a write on this Realm committed, or `refresh()`
        /// moved it forward.
        case didChange = "RLMRealmDidChangeNotification"
        /// The Realm's version is out of date and `refresh()` should be called (sent by
        /// Realms that do not refresh themselves).
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// The signature of a Realm notification block.
    public typealias NotificationBlock = (_ notification: Notification, _ realm: Realm) -> Void

    /// Registers a block called synchronously whenever this Realm advances: after every
    /// `write {}` / `commitWrite()` on it (even one that changed nothing) and after a
    /// `refresh()` that found a newer version.
    ///
    /// Commits made elsewhere (another thread, another Realm) reach it when this Realm advances:
    /// on its scheduler (the main queue, its `LibUVEventLoop`, its dispatch queue) soon after the
    /// commit, or at `refresh()` / `beginWrite()`. A Realm on a thread without a scheduler sees
    /// them only at `refresh()` / `beginWrite()`.
    ///
    /// - Returns: a token; invalidate it to stop the notifications.
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        verifyThread()
        precondition(!state.isFrozen, "Frozen Realms do not change and do not have change notifications.")
        let id = state.nextObserverID
        state.nextObserverID += 1
        state.realmObservers.append((id, block))
        state.updateTargetRetention(notificationTarget)
        return RealmNotificationToken(state: state, id: id)
    }

    /// Calls the Realm observers, except those of the skipped tokens; user code runs with no
    /// lock held.
    func notifyRealmObservers(_ notification: Notification, skipping skipped: [NotificationToken] = []) {
        let skippedIDs = Set(skipped.compactMap { ($0 as? RealmNotificationToken)?.id })
        for (id, block) in state.realmObservers where !skippedIDs.contains(id) {
            guard state.realmObservers.contains(where: { $0.id == id }) else { continue }
            block(notification, self)
        }
    }
}

/// The token of a Realm observer.
final class RealmNotificationToken: NotificationToken {
    let id: Int

    init(state: RealmState, id: Int) {
        self.id = id
        super.init { [weak state] in
            guard let state else { return }
            state.realmObservers.removeAll { $0.id == id }
            // Releasing never creates a target: the one retained exists.
            state.updateTargetRetention { state.target! }
        }
    }
}
