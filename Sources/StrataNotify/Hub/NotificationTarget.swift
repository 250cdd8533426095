import StrataEventLoop
import StrataSupport

/// Where one Realm's notifications are delivered: its scheduler and the delivery routine that
/// runs there.
///
/// The worker calls ``requestDelivery()`` after computing a new version; deliveries coalesce
/// (one is scheduled at a time), and the routine advances the Realm and calls the blocks.
package final class NotificationTarget: @unchecked Sendable {
    // Safety: `handler` is set once, on the target's thread, before the target is registered,
    // and only called on the scheduler's thread; `scheduled` is under its lock.

    /// The scheduler the Realm is confined to.
    package let scheduler: any StrataScheduler
    private var handler: (() -> Void)?
    private let scheduled = LockedValueBox(false)
    /// Whether the target wants a delivery on every new version even without notifiers (it has
    /// Realm-level observers).
    let wantsEveryVersion = LockedValueBox(false)

    /// Creates a target delivering on `scheduler`.
    package init(scheduler: any StrataScheduler) {
        self.scheduler = scheduler
    }

    /// Sets the delivery routine (call on the scheduler's thread, before registering).
    package func setHandler(_ handler: @escaping () -> Void) {
        self.handler = handler
    }

    /// Asks for every new version to be delivered, even without notifiers.
    package func setWantsEveryVersion(_ wants: Bool) {
        wantsEveryVersion.withLockedValue { $0 = wants }
    }

    /// Schedules the delivery routine unless one is already scheduled.
    package func requestDelivery() {
        let alreadyScheduled = scheduled.withLockedValue { scheduled -> Bool in
            defer { scheduled = true }
            return scheduled
        }
        guard !alreadyScheduled else { return }
        scheduler.schedule { [self] in
            scheduled.withLockedValue { $0 = false }
            handler?()
        }
    }
}
