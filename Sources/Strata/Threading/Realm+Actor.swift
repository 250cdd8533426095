import Dispatch
import Synchronization

extension Realm {
    /// Opens a Realm confined to `actor`, as Realm Swift's `Realm(configuration:actor:)`: the
    /// Realm may be used from code isolated to the actor, and its notifications and
    /// asynchronous writes run on the actor.
    ///
    /// Any actor works, whatever its executor (the default one, the main actor, or an actor
    /// whose executor is a `LibUVEventLoop`). Deliveries reach the actor as jobs of one task
    /// isolated to it, so they run in order whenever the actor is free (between its other jobs or
    /// at their suspension points). Using the Realm from outside the actor traps.
    ///
    /// ```swift
    /// actor Store {
    ///     var realm: Realm!
    ///     init(configuration: Realm.Configuration) async throws {
    ///         realm = try await Realm(configuration: configuration, actor: self)
    ///     }
    ///     func add(_ name: String) async throws {
    ///         try await realm.asyncWrite { realm.add(Dog(value: ["name": name])) }
    ///     }
    /// }
    /// ```
    ///
    /// Unlike Realm Swift, the actor is an `isolated` parameter: call it from the actor itself
    /// (a `Realm` is not `Sendable`, so it could not be returned across to another isolation).
    ///
    /// - Throws: as ``init(configuration:)``.
    public convenience init<A: Actor>(configuration: Configuration = .defaultConfiguration,
                                      actor: isolated A) async throws {
        try self.init(configuration: configuration) { store in
            try RealmState.forActor(actor, store: store)
        }
    }

    /// Opens a Realm confined to the calling actor, as Realm Swift's `Realm.open(configuration:)`:
    /// the same Realm as ``init(configuration:actor:)`` with the caller's actor.
    ///
    /// ```swift
    /// @MainActor func load() async throws {
    ///     let realm = try await Realm.open(configuration: configuration)
    /// }
    /// ```
    ///
    /// Call it from code isolated to an actor (the main actor, an `actor`'s method); Realm's
    /// `downloadBeforeOpen` has no counterpart, as there is no synchronised Realm.
    ///
    /// - Throws: as ``init(configuration:)``.
    public static func open(configuration: Configuration = .defaultConfiguration,
                            _isolation actor: isolated any Actor = #isolation) async throws -> Realm {
        try Realm(configuration: configuration) { store in
            try RealmState.forActor(actor, store: store)
        }
    }

    /// Opens a Realm on `callbackQueue` and calls `callback` there with it (confined to that
    /// queue) or with the error, as Realm Swift's `asyncOpen(configuration:callbackQueue:callback:)`.
    ///
    /// There is no synchronised Realm to download first, so this only moves the open (and any
    /// migration) off the calling thread.
    ///
    /// - Parameters:
    ///   - configuration: The Realm to open.
    ///   - callbackQueue: A serial queue; the main queue by default (it runs only while the main
    ///     thread drains it: `dispatchMain()`, `RunLoop.main.run()` or a `@MainActor` task).
    ///   - callback: Called once on `callbackQueue`, unless the task was cancelled first.
    /// - Returns: A task whose ``AsyncOpenTask/cancel()`` drops the callback.
    @discardableResult
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration,
                                 callbackQueue: DispatchQueue = .main,
                                 callback: @escaping (Result<Realm, Swift.Error>) -> Void) -> AsyncOpenTask {
        let task = AsyncOpenTask()
        let callback = QueueConfined(callback)
        callbackQueue.async {
            guard !task.isCancelled else { return }
            let result = Result<Realm, Swift.Error> { try Realm(configuration: configuration, queue: callbackQueue) }
            guard !task.isCancelled else { return }
            callback.value(result)
        }
        return task
    }
}

/// The handle of a ``Realm/asyncOpen(configuration:callbackQueue:callback:)``, as Realm Swift's
/// `AsyncOpenTask`.
public final class AsyncOpenTask: Sendable {
    private let cancelled = Atomic<Bool>(false)

    init() {}

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Cancels the open: the callback is not called if it has not started.
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
    }
}
