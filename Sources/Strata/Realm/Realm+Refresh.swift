extension Realm {
    /// Whether the Realm advances to the newest version by itself, as Realm Swift's
    /// `autorefresh` (default `true`).
    ///
    /// A Realm with a scheduler (opened on a `LibUVEventLoop` thread, the main thread, or with
    /// `Realm(configuration:queue:)`) is woken after every commit from another thread or Realm
    /// and advances there, delivering its notifications. With `autorefresh` off it stays at its
    /// version until ``refresh()`` or a write, its collection notifications wait for that too,
    /// and its Realm observers hear `.refreshRequired` once per new version. A Realm without a
    /// scheduler advances only at ``refresh()`` and writes either way.
    public var autorefresh: Bool {
        get { state.autorefresh }
        set {
            verifyThread()
            guard !isFrozen else { return }
            state.autorefresh = newValue
            state.updateTargetRetention(notificationTarget)
        }
    }

    /// Advances the Realm to the newest version and delivers its notifications, as Realm Swift's
    /// `asyncRefresh()` (for actor-isolated and main-thread Realms, from async code).
    ///
    /// It does not need to suspend: refreshing pins the newest committed version, which never
    /// waits for a writer. `_isolation` keeps Realm Swift's signature.
    ///
    /// - Returns: whether the Realm advanced.
    @discardableResult
    public func asyncRefresh(_isolation: isolated (any Actor)? = #isolation) async -> Bool {
        refresh()
    }
}
