import StrataEngine
import StrataNotify
@_spi(StrataDaemon) import StrataSupport

extension Realm {
    /// What a notifier's pins are held by, for ``Realm/statistics``.
    static let notifierHolder = PinHolder(.notifier, "a change notifier (a collection, object or Realm observer)")

    /// Registers a notifier computing with `computer`; `handle` runs on this Realm's scheduler
    /// with each delivery and whether every commit it covers was made by this Realm.
    ///
    /// Traps (as Realm does) inside a write transaction, and on a thread that has no scheduler.
    ///
    /// With `baselineAtRegistration` (object observers, which have no initial callback) the
    /// notifier starts from this Realm's version, so a commit that lands right after the
    /// registration is reported rather than folded into a first state computed later.
    ///
    /// With a `budget`, the notifier's computations are held to it from the first (the initial
    /// state) on: it is set before the worker can see the notifier.
    func addNotifier<Computer: ChangeComputer>(
        _ computer: Computer, baselineAtRegistration: Bool = false, budget: ComputeBudget? = nil,
        _ handle: @escaping (Notifier<Computer>.Delivery, _ isLocal: Bool) -> Void
    ) -> NotificationToken {
        verifyThread()
        precondition(!state.isFrozen, "Frozen Realms do not change and do not have change notifications.")
        precondition(!isInWriteTransaction, "Cannot register notification blocks from within write transactions.")
        let notifier = baselineAtRegistration
            ? Notifier(computer, baselineAt: store.pin(again: pinnedForReading, holder: Self.notifierHolder))
            : Notifier(computer)
        if let budget { notifier.limitCost(budget) }
        let state = self.state
        let registration = NotificationRegistration(notifier: notifier, state: state) { [weak state] version in
            guard let delivery = notifier.takeDelivery(at: version) else { return }
            var isLocal = false
            if case .change(_, _, let from, let to) = delivery, let state {
                isLocal = (from + 1...max(from + 1, to)).allSatisfy { state.localCommits.contains($0) }
            }
            handle(delivery, isLocal)
        }
        let target = notificationTarget()
        state.registrations.append(registration)
        NotifierHub.hub(for: store).register(notifier, target: target)
        return RegistrationToken(registration)
    }

    /// The Realm's delivery target, created with its scheduler on first use.
    func notificationTarget() -> NotificationTarget {
        if let target = state.target { return target }
        guard let scheduler = state.scheduler else {
            preconditionFailure("Can only add notification blocks from within runloops: open the Realm on the main "
                                + "thread, on a LibUVEventLoop's thread, with Realm(configuration:queue:), Realm(configuration:scheduler:) or "
                                + "Realm(configuration:actor:), or observe(on: queue).")
        }
        let target = NotificationTarget(scheduler: scheduler)
        let configuration = self.configuration
        target.setHandler { [weak state] in
            guard let state else { return }
            let realm = Realm(state: state, configuration: state.configuration ?? configuration)
            if state.autorefresh {
                realm.deliverNotifications(advancingTo: nil)
            } else {
                realm.deliverInitialNotifications()
                realm.announceRefreshRequired()
            }
        }
        state.target = target
        return target
    }

    /// Delivers `.initial` to the blocks that have not had it, at the Realm's own version (for a
    /// Realm that does not advance by itself).
    func deliverInitialNotifications() {
        guard let pin = state.pinned, !isInWriteTransaction else { return }
        let waiting = state.registrations.filter { !$0.isInvalidated && !$0.notifier.hasDeliveredInitial }
        for registration in waiting { registration.notifier.prepareInitial(at: pin, store: store) }
        for registration in waiting where !registration.isInvalidated { registration.deliver(at: pin.version) }
    }

    /// Tells the Realm observers, once per new version, that a commit elsewhere awaits a
    /// `refresh()` (autorefresh is off).
    func announceRefreshRequired() {
        let newest = store.currentVersion
        guard newest > version, newest > state.announcedVersion, !isInWriteTransaction else { return }
        state.announcedVersion = newest
        notifyRealmObservers(.refreshRequired)
    }

    /// Brings every notifier of this Realm to one version, advances the Realm to it, and calls
    /// the Realm observers (when the version changed) and then the notification blocks, in
    /// registration order.
    ///
    /// The version is `requested` (``refresh()``), or else the newest the worker prepared. A
    /// notifier the worker has not brought there yet is computed here, except the initial state
    /// of one held to a budget (registered with `observe(keyPaths:budget:_:)`): that may be
    /// costly, so only the worker computes it (its `.initial` comes after the worker's next
    /// pass), and this thread, a service's event loop, is never held by it.
    ///
    /// - Returns: whether the Realm's version changed.
    @discardableResult
    func deliverNotifications(advancingTo requested: PinnedSnapshot?) -> Bool {
        guard !isInWriteTransaction else { return false }
        let hub = NotifierHub.hub(for: store)
        let registrations = state.registrations
        var pin = requested ?? hub.latestPrepared.map { store.pin(again: $0, holder: Self.notifierHolder) }
        if let current = state.pinned, current.version >= (pin?.version ?? 0) { pin = current }
        guard var pin else { return false }
        var settled = false
        while !settled {
            settled = true
            for registration in registrations
            where !registration.isInvalidated && !registration.notifier.awaitsInitialFromWorker {
                registration.notifier.prepare(to: pin, store: store)
            }
            for registration in registrations where !registration.isInvalidated {
                if let pending = registration.notifier.pendingPin, pending.version > pin.version {
                    pin = store.pin(again: pending, holder: Self.notifierHolder)
                    settled = false
                }
            }
        }
        let changed = state.pinned?.version != pin.version
        // A pin of its own: the notifiers keep theirs, and statistics tell the two holders apart.
        if changed { state.pinned = store.pin(again: pin, holder: state.pinHolder) }
        if changed { notifyRealmObservers(.didChange) }
        for registration in registrations where !registration.isInvalidated {
            registration.deliver(at: pin.version)
        }
        pruneLocalCommits()
        return changed
    }

    /// Remembers that this Realm committed `version`, and drops that commit's changes for the
    /// observers whose tokens are in `skipped`.
    func noteLocalCommit(_ version: UInt64, skipping skipped: [NotificationToken]) {
        if !state.registrations.isEmpty { state.localCommits.insert(version) }
        guard let pin = state.pinned else { return }
        for token in skipped {
            guard let token = token as? RegistrationToken,
                  state.registrations.contains(where: { $0 === token.registration }) else { continue }
            token.registration.notifier.skip(to: pin, store: store)
        }
    }

    private func pruneLocalCommits() {
        guard !state.localCommits.isEmpty else { return }
        let delivered = state.registrations.compactMap(\.notifier.deliveredVersion).min() ?? .max
        state.localCommits = state.localCommits.filter { $0 > delivered }
    }
}

extension RealmState {
    /// Removes an invalidated registration.
    func remove(_ registration: NotificationRegistration) {
        registrations.removeAll { $0 === registration }
        NotifierHub.hub(for: store).unregister(registration.notifier)
    }
}
