#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrataEngine
import StrataEventLoop
import StrataNotify
import StrataSupport

/// The mutable state of a Realm on one thread: its pinned version, its write transaction and
/// its cache of tables.
///
/// Realm Swift caches Realm instances per thread and configuration, so a second `Realm()` on a
/// thread is the same Realm, sharing its write transaction (opening a Realm inside a `write {}`
/// block and adding to it is common). Here every `Realm` value opened for the same store on the
/// same thread shares one `RealmState`; the state lives while any Realm or managed object of
/// that thread refers to it.
final class RealmState {
    /// Whether nothing has read through the state since it was opened: Realm's "not in a read
    /// transaction yet", in which a ``ThreadSafeReference`` resolves at its own version.
    var unreadSinceOpen = false
    var pinned: PinnedSnapshot? {
        didSet {
            changes.increment()
            if let pinned, pinned !== oldValue { pinned.relabel(pinHolder) }
        }
    }
    /// What holds this state's pins, for ``Realm/statistics`` (see `pinHolder(confinement:…)`).
    let pinHolder: PinHolder
    var writeState: Realm.WriteState = .none {
        didSet {
            changes.increment()
            if case .active(let transaction) = writeState { transaction.changeCounter = changes }
            if let key = threadKeepAliveKey { keepAliveOnThreadWhileWriting(key, wasWriting: oldValue.isWriting) }
        }
    }
    /// The key under which the owning thread's dictionary holds this state while a write is
    /// open (thread-confined states only; see ``keepAliveOnThreadWhileWriting(_:wasWriting:)``).
    var threadKeepAliveKey: String?
    var tableInfos: [ObjectIdentifier: TableInfo] = [:] {
        didSet {
            lastTableInfo = nil
            lastKeyIndex = nil
        }
    }
    /// The entry of `tableInfos` that `Realm.tableInfo(ofType:)` found last, and its class: a
    /// lookup of the same class again (a primary-key lookup, `objects(_:)`) skips hashing. Never
    /// set on a frozen state, which threads share. No dynamic exclusivity check (about 10 ns of a
    /// primary-key lookup): the state is confined to its Realm's thread, a frozen one is only
    /// read, and no access to the field spans a call.
    @exclusivity(unchecked) var lastTableInfo: (type: ObjectIdentifier, table: TableInfo)?
    /// The integer primary-key index `Realm.object(ofType:forPrimaryKey:)` used last (see
    /// ``PrimaryKeyLookup``). Never set on a frozen state; no dynamic exclusivity check, for the
    /// reasons `lastTableInfo` has none.
    @exclusivity(unchecked) var lastKeyIndex: PrimaryKeyLookup?
    /// The model classes the Realm opened with (its schema).
    var schemaClasses: [ClassInfo] = []
    /// `Realm.observe` blocks, in registration order.
    var realmObservers: [(id: Int, block: Realm.NotificationBlock)] = []
    var nextObserverID = 0
    /// Counts every change to what the Realm reads (a new version, a write begun, committed or
    /// cancelled, and each instruction of its write): the key of managed objects' row caches.
    let changes = ChangeCounter()
    /// How many times ``Realm/invalidate()`` released the version: objects and collections read
    /// before an invalidation stay invalidated (see `ObjectHandle.epoch`).
    var invalidations: UInt32 = 0

    /// The key under which a row read now may be cached: stale after any commit, refresh or
    /// write instruction.
    var readKey: UInt64 { changes.count }

    /// A row-cache key no read has: an object's cache before its first read.
    static let noReadKey = UInt64.max
    let thread = pthread_self()
    let store: Store
    /// The configuration of the first Realm opened on this state.
    var configuration: Realm.Configuration?
    /// Where notifications are delivered and what the Realm is confined to: an event loop, a
    /// dispatch queue, the main queue, or nil (a plain thread: no asynchronous notifications).
    let scheduler: (any StrataScheduler)?
    /// Collection, map and object observers, in registration order.
    var registrations: [NotificationRegistration] = []
    /// The delivery end of this Realm at the notifier worker, created on first observer.
    var target: NotificationTarget?
    /// Versions this Realm committed and has not yet delivered past (for `PropertyChange.oldValue`).
    var localCommits: Set<UInt64> = []
    /// Whether the Realm advances by itself after other threads' commits (``Realm/autorefresh``).
    var autorefresh = true
    /// Whether the hub holds `target` to wake this Realm after every commit.
    var retainsTarget = false
    /// The newest version announced with `.refreshRequired` (autorefresh off).
    var announcedVersion: UInt64 = 0
    /// Writes queued with `writeAsync` / `beginAsyncWrite`, run in order on the scheduler.
    let asyncWrites = AsyncWriteQueue()
    /// The active event scopes' recorders (``Events/Scope``). Read (emptiness) on every accessor
    /// an iteration or lookup makes: no dynamic exclusivity check, the state being confined to its
    /// Realm's thread and no access to the array spanning a call that could reach it again.
    @exclusivity(unchecked) var eventRecorders: [EventRecorder] = []
    /// Event metadata set with `Events.updateMetadata`, replacing the configuration's.
    var eventMetadata: [String: String]?
    /// The last frozen state made from this one, reused while it lives and the version matches.
    weak var frozenState: RealmState?

    /// Whether this is a frozen Realm's state: one version forever, readable from any thread.
    ///
    /// A frozen state is never mutated after ``frozen(from:)`` returns (its tables are resolved
    /// up front, reads skip the row caches), so threads may share it without locks.
    let isFrozen: Bool

    /// What the state is confined to (resolved once: the confinement check runs on every
    /// property read).
    let confinement: Confinement

    /// What a Realm is confined to, as Realm Swift's schedulers decide it.
    enum Confinement {
        /// The thread that opened it (compared by pthread identity): a Realm opened without a
        /// queue, including on the main thread while it runs a `DispatchQueue.sync` block.
        case thread
        /// A serial dispatch queue, wherever the queue runs (`Realm(configuration:queue:)`), or
        /// an application's own scheduler (`Realm(configuration:scheduler:)`): usable wherever
        /// the scheduler says its work runs.
        case scheduler(any StrataScheduler)
        /// The main thread (a Realm opened there): usable on the main thread, whatever queue's
        /// `sync` block it runs, and in any block the main queue runs (on Linux, once the main
        /// thread calls `dispatchMain()`, as an `async` main does, the main queue, and so the
        /// main actor, runs on other threads, not always the same one).
        case main(DispatchQueueScheduler)
        /// An actor (`Realm(configuration:actor:)`): checked with the actor's isolation.
        case actor(any Actor)
    }

    private init(pinned: PinnedSnapshot, store: Store, scheduler: (any StrataScheduler)?,
                 confinement: Confinement = .thread, isFrozen: Bool = false) {
        self.pinned = pinned
        self.store = store
        self.scheduler = scheduler
        self.isFrozen = isFrozen
        self.confinement = confinement
        pinHolder = Self.pinHolder(confinement: confinement, scheduler: scheduler, isFrozen: isFrozen)
        pinned.relabel(pinHolder)
        if isFrozen {
            threadCheck = .anywhere
        } else if case .thread = confinement {
            threadCheck = .pthread
        } else if case .main = confinement {
            threadCheck = .pthreadOrConfinement
        } else {
            threadCheck = .confinement
        }
    }

    /// A frozen state at `live`'s current read version (the version before an open write),
    /// holding its own pin of that version.
    static func frozen(from live: RealmState, version pinned: PinnedSnapshot) -> RealmState {
        let state = RealmState(pinned: live.store.pin(again: pinned), store: live.store, scheduler: nil, isFrozen: true)
        state.configuration = live.configuration
        state.schemaClasses = live.schemaClasses
        for info in live.schemaClasses + live.tableInfos.values.map(\.classInfo) {
            if let table = pinned.snapshot.table(named: info.className) {
                state.tableInfos[ObjectIdentifier(info.type)] = TableInfo(key: table.key, classInfo: info, schema: table.schema)
            }
        }
        return state
    }

    deinit {
        if case .active(let transaction) = writeState { transaction.cancel() }
        let hub = NotifierHub.hub(for: store)
        for registration in registrations { hub.unregister(registration.notifier) }
        if let target, retainsTarget { hub.releaseTarget(target) }
    }

    /// Keeps the notifier hub waking this Realm after every commit while it autorefreshes or has
    /// Realm observers (which hear `.didChange` or `.refreshRequired`); only Realms with a
    /// scheduler can be woken.
    func updateTargetRetention(_ target: () -> NotificationTarget) {
        guard scheduler != nil, !isFrozen else { return }
        let wanted = autorefresh || !realmObservers.isEmpty
        guard wanted != retainsTarget else { return }
        let hub = NotifierHub.hub(for: store)
        if wanted {
            hub.retainTarget(target())
        } else if let existing = self.target {
            hub.releaseTarget(existing)
        }
        retainsTarget = wanted
    }

    /// Whether the caller may use this state: on its queue for a queue-confined Realm, isolated
    /// to its actor for an actor-confined one, otherwise on the thread that created it (the main
    /// thread counts as itself whatever queue's `sync` block it runs, as in Realm Swift).
    var isOnOwningThread: Bool {
        // The common cases first, without copying `confinement` (a copy retains its payload, and
        // this runs on every property read).
        switch threadCheck {
        case .anywhere: return true
        case .pthread: return pthread_equal(thread, pthread_self()) != 0
        case .pthreadOrConfinement: return pthread_equal(thread, pthread_self()) != 0 || isInConfinement
        case .confinement: return isInConfinement
        }
    }

    /// How ``isOnOwningThread`` decides, resolved once from `isFrozen` and `confinement`.
    private enum ThreadCheck {
        /// A frozen state: any thread.
        case anywhere
        /// A thread-confined state: the opening thread's identity.
        case pthread
        /// A main-thread state: the main thread first, then the main queue.
        case pthreadOrConfinement
        /// A queue, scheduler or actor confinement: ``isInConfinement``.
        case confinement
    }

    private let threadCheck: ThreadCheck

    /// The thread on which ``isOnOwningThread`` is true without further checks: the opening
    /// thread of a thread-confined or main-thread state; nil for other confinements.
    var confinedThread: pthread_t? {
        switch threadCheck {
        case .pthread, .pthreadOrConfinement: thread
        case .anywhere, .confinement: nil
        }
    }

    /// Whether the caller is inside the state's queue, scheduler, main thread or actor.
    private var isInConfinement: Bool {
        switch confinement {
        case .thread: return pthread_equal(thread, pthread_self()) != 0
        case .scheduler(let scheduler): return scheduler.isOnSchedulerThread
        case .main(let scheduler): return pthread_equal(thread, pthread_self()) != 0 || scheduler.isOnSchedulerThread
        case .actor(let actor):
            // Swift has no boolean "is this actor's executor current" for any actor: this traps,
            // with Realm's message, when the caller is not isolated to the actor.
            actor.preconditionIsolated("Realm accessed from incorrect thread.")
            return true
        }
    }

    /// Like ``isOnOwningThread`` but never traps: for an actor-confined state, true only inside
    /// a closure its scheduler runs.
    var isOnOwningThreadWithoutTrapping: Bool {
        if case .actor = confinement { return scheduler?.isOnSchedulerThread ?? false }
        return isOnOwningThread
    }

    private final class WeakState: @unchecked Sendable {
        // Safety: only read or written under `queueStates`' lock or on the owning thread.
        weak var state: RealmState?
        init(_ state: RealmState) { self.state = state }
    }

    private static let threadKey = "io.strata.realm-states"

    /// The state for `store` on the calling thread, creating it (and pinning the newest
    /// version) if there is none.
    ///
    /// - Returns: the state and whether it was just created.
    static func forCurrentThread(store: Store, queue: DispatchQueue?) throws -> (RealmState, isNew: Bool) {
        if let queue {
            return try queueStates.withLockedValue { states in
                let key = QueueKey(queue: ObjectIdentifier(queue), store: ObjectIdentifier(store))
                if let state = states[key]?.state { return (state, false) }
                let scheduler = DispatchQueueScheduler(queue: queue)
                let state = RealmState(pinned: try store.pin(), store: store, scheduler: scheduler,
                                       confinement: .scheduler(scheduler))
                states[key] = WeakState(state)
                return (state, true)
            }
        }
        if LibUVEventLoop.current != nil { return try forCurrentThread(store: store, place: .other) }
        if Thread.isMainThread { return try forCurrentThread(store: store, place: .mainThread) }
        return try forCurrentThread(store: store, place: mainScheduler.isOnSchedulerThread ? .mainQueue : .other)
    }

    /// A new state for `store` confined to an application's `scheduler` (not shared: each call
    /// pins its own version).
    static func forScheduler(_ scheduler: any StrataScheduler, store: Store) throws -> (RealmState, isNew: Bool) {
        let state = RealmState(pinned: try store.pin(), store: store, scheduler: scheduler,
                               confinement: .scheduler(scheduler))
        return (state, true)
    }

    /// Where a Realm without a queue is being opened.
    enum Place {
        /// The main thread: the Realm is usable there (inside any queue's `sync` block too) and
        /// in main-queue blocks, and delivers on the main queue.
        case mainThread
        /// A main-queue block on another thread (Linux after `dispatchMain()`, as in an `async`
        /// main or a `@MainActor` task): the Realm is confined to the main queue.
        case mainQueue
        /// Any other thread: the Realm is confined to it (and delivers on its event loop, if any).
        case other
    }

    /// The state for `store` opened at `place` on the calling thread (a parameter so tests can
    /// take the main thread's path).
    static func forCurrentThread(store: Store, place: Place) throws -> (RealmState, isNew: Bool) {
        let key = ObjectIdentifier(store)
        if place != .other, let state = mainStates.withLockedValue({ $0[key]?.state }), state.isOnOwningThread {
            return (state, false)
        }
        let dictionary = Thread.current.threadDictionary
        let threadKey = "\(Self.threadKey).\(key.hashValue)"
        if place != .mainQueue, let box = dictionary[threadKey] as? WeakState, let state = box.state {
            return (state, false)
        }
        let state: RealmState
        switch place {
        case .mainThread, .mainQueue:
            state = RealmState(pinned: try store.pin(), store: store, scheduler: mainScheduler,
                               confinement: place == .mainThread ? .main(mainScheduler) : .scheduler(mainScheduler))
            mainStates.withLockedValue { $0[key] = WeakState(state) }
        case .other:
            state = RealmState(pinned: try store.pin(), store: store, scheduler: LibUVEventLoop.current)
        }
        if place != .mainQueue {
            dictionary[threadKey] = WeakState(state)
            state.threadKeepAliveKey = threadKey + ".open-write"
        }
        return (state, true)
    }

    /// The state for `store` confined to `actor`, creating it (and pinning the newest version)
    /// if there is none; its notifications run as jobs on the actor.
    ///
    /// - Returns: the state and whether it was just created.
    static func forActor(_ actor: any Actor, store: Store) throws -> (RealmState, isNew: Bool) {
        try actorStates.withLockedValue { states in
            let key = QueueKey(queue: ObjectIdentifier(actor), store: ObjectIdentifier(store))
            if let state = states[key]?.state { return (state, false) }
            let state = RealmState(pinned: try store.pin(), store: store, scheduler: ActorScheduler(actor: actor),
                                   confinement: .actor(actor))
            states[key] = WeakState(state)
            return (state, true)
        }
    }

    private struct QueueKey: Hashable {
        let queue: ObjectIdentifier
        let store: ObjectIdentifier
    }

    /// The states of queue-confined Realms (`Realm(configuration:queue:)`).
    private static let queueStates = LockedValueBox<[QueueKey: WeakState]>([:])

    /// The scheduler of the main queue, shared by the main thread's and main queue's Realms.
    private static let mainScheduler = DispatchQueueScheduler(queue: .main)

    /// The main thread's and main queue's state per store (the main queue may run on several
    /// threads, so the thread dictionary alone cannot find it).
    private static let mainStates = LockedValueBox<[ObjectIdentifier: WeakState]>([:])

    /// The states of actor-confined Realms (`Realm(configuration:actor:)`), keyed by actor
    /// identity in `QueueKey.queue`.
    private static let actorStates = LockedValueBox<[QueueKey: WeakState]>([:])
}
