import Dispatch
import StrataEventLoop
import StrataSupport

extension ThreadConfined {
    /// Registers an observer that runs on the serial `queue`, as Realm Swift's `observe(on:)`:
    /// the value is handed over with a ``ThreadSafeReference`` and resolved in a Realm of the
    /// same configuration confined to `queue`, where `register` adds the observer.
    ///
    /// Call it on the thread that owns the value. `register` runs on `queue`; it gets the
    /// resolved value and whether the returned token is still wanted (check it before calling
    /// the user's block), or the error that kept the Realm from opening there.
    func observeHandedOver(
        to queue: DispatchQueue,
        _ register: @escaping (Result<Self, Error>, _ isWanted: @escaping () -> Bool) -> NotificationToken?
    ) -> NotificationToken {
        guard let realm else {
            preconditionFailure("Only objects which are managed by a Realm support change notifications")
        }
        realm.verifyThread()
        precondition(!realm.isFrozen, "Frozen Realms do not change and do not have change notifications.")
        precondition(!realm.isInWriteTransaction, "Cannot register notification blocks from within write transactions.")
        let reference = ThreadSafeReference(to: self)
        let configuration = realm.configuration
        let observation = QueueObservation(invalidatingOn: DispatchQueueScheduler(queue: queue))
        let registration = QueueConfined(register)
        queue.async {
            guard observation.isWanted else { return }
            let inner: NotificationToken?
            var opened: Realm?
            do {
                let realm = try Realm(configuration: configuration, queue: queue)
                opened = realm
                guard let value = realm.resolve(reference) else { return }   // deleted meanwhile
                inner = registration.value(.success(value), { observation.isWanted })
            } catch {
                inner = registration.value(.failure(error), { observation.isWanted })
            }
            if let inner { observation.attach(inner, realm: opened) }
        }
        return HandedOverToken(observation)
    }
}

/// A value used only on one serial queue, carried there by a `@Sendable` closure.
final class QueueConfined<Value>: @unchecked Sendable {
    // Safety: `value` is immutable and read only by blocks running on the one serial queue (or
    // actor) it is handed to; the hand-off (`queue.async`, a scheduler's `schedule`, or a lock
    // release followed by an acquire) orders the creating thread's writes before those reads.
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The state of an `observe(on: queue)` or `observe(on: actor)` registration, shared by its
/// token and the queue or actor it delivers on.
final class QueueObservation: Sendable {
    private enum State {
        case pending
        /// The observer's token and the queue-confined Realm that keeps it alive.
        case registered(QueueConfined<(NotificationToken, Realm?)>)
        case cancelled
    }

    private let state = LockedValueBox<State>(.pending)
    /// Where the observer's own token is invalidated (the queue or actor it lives on).
    private let scheduler: any StrataScheduler

    init(invalidatingOn scheduler: any StrataScheduler) {
        self.scheduler = scheduler
    }

    /// Whether the token was not invalidated yet (callable from any thread).
    var isWanted: Bool {
        state.withLockedValue { if case .cancelled = $0 { false } else { true } }
    }

    /// Records the observer registered on the queue or actor; invalidates it at once when the
    /// token was invalidated meanwhile. Called on that queue or actor.
    func attach(_ token: NotificationToken, realm: Realm?) {
        let registered = QueueConfined((token, realm))
        let kept = state.withLockedValue { state -> Bool in
            guard case .pending = state else { return false }
            state = .registered(registered)
            return true
        }
        if !kept { token.invalidate() }
    }

    /// Stops the observer: no block starts after this returns (each checks ``isWanted``); the
    /// registration itself is removed on the queue or actor.
    func cancel() {
        let previous = state.withLockedValue { state -> State in
            defer { state = .cancelled }
            return state
        }
        guard case .registered(let registered) = previous else { return }
        scheduler.schedule { registered.value.0.invalidate() }
    }
}

/// The token `observe(on: queue)` and `observe(on: actor)` return: invalidating or releasing it stops the observer.
final class HandedOverToken: NotificationToken {
    private let observation: QueueObservation

    init(_ observation: QueueObservation) {
        self.observation = observation
        super.init { observation.cancel() }
    }

    deinit { observation.cancel() }
}
