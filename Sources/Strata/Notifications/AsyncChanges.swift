import StrataEventLoop

/// Carries a thread-confined token to the closure that invalidates it on its Realm's scheduler.
private final class TokenBox: @unchecked Sendable {
    // Safety: the token is only touched on the Realm's scheduler, where the closure runs.
    let token: NotificationToken
    init(_ token: NotificationToken) { self.token = token }
}

/// Ends an observation when its async sequence terminates: the token is invalidated on the
/// Realm's scheduler, where it belongs.
private func invalidation<Termination>(of token: NotificationToken,
                                       on scheduler: (any StrataScheduler)?) -> @Sendable (Termination) -> Void {
    let box = TokenBox(token)
    return { _ in scheduler?.schedule { box.token.invalidate() } }
}

extension RealmCollection {
    /// The collection's changes as an async sequence: `.initial` first, then one `.update` per
    /// delivery, as ``observe(keyPaths:on:_:)`` delivers them.
    ///
    /// Realm objects are confined to their Realm's thread, so iterate from code that runs there:
    /// for a Realm opened on the main thread, a `@MainActor` task.
    ///
    /// ```swift
    /// @MainActor func watch(_ dogs: Results<Dog>) async {
    ///     for await change in dogs.changes {
    ///         if case .update(let dogs, _, let insertions, _) = change { print(insertions, dogs.count) }
    ///     }
    /// }
    /// ```
    ///
    /// The observation ends when the iterating task is cancelled or stops iterating.
    public var changes: AsyncStream<RealmCollectionChange<Self>> { changes(keyPaths: nil) }

    /// The collection's changes, filtered by `keyPaths`, as an async sequence (see ``changes``).
    public func changes(keyPaths: [String]?) -> AsyncStream<RealmCollectionChange<Self>> {
        let (stream, continuation) = AsyncStream.makeStream(of: RealmCollectionChange<Self>.self)
        let token = observe(keyPaths: keyPaths) { change in
            // The sequence is consumed on the Realm's thread (see above); the value never
            // crosses to another one.
            nonisolated(unsafe) let change = change
            continuation.yield(change)
        }
        continuation.onTermination = invalidation(of: token, on: _asResults.owner.state.scheduler)
        return stream
    }
}

extension Map {
    /// The map's changes as an async sequence: `.initial` first, then each `.update` (see
    /// ``RealmCollection/changes``).
    public var changes: AsyncStream<RealmMapChange<Map>> {
        let (stream, continuation) = AsyncStream.makeStream(of: RealmMapChange<Map>.self)
        let token = observe { change in
            nonisolated(unsafe) let change = change
            continuation.yield(change)
        }
        continuation.onTermination = invalidation(of: token, on: realm?.state.scheduler)
        return stream
    }
}

/// Gives model objects a `changes(keyPaths:)` typed by their own class.
public protocol _ObjectChangesSource: AnyObject {}

extension ObjectBase: _ObjectChangesSource {}

extension _ObjectChangesSource where Self: ObjectBase {
    /// The object's changes as an async sequence of `.change` values; the sequence finishes
    /// when the object is deleted (as Realm's object publisher does), instead of yielding
    /// `.deleted`.
    ///
    /// ```swift
    /// for await change in dog.changes(keyPaths: ["name"]) {
    ///     if case .change(let dog, _) = change { print(dog.name) }
    /// }
    /// ```
    public func changes(keyPaths: [String]? = nil) -> AsyncStream<ObjectChange<Self>> {
        let (stream, continuation) = AsyncStream.makeStream(of: ObjectChange<Self>.self)
        let token = observe(keyPaths: keyPaths) { (change: ObjectChange<Self>) in
            if case .deleted = change {
                continuation.finish()
            } else {
                nonisolated(unsafe) let change = change
                continuation.yield(change)
            }
        }
        continuation.onTermination = invalidation(of: token, on: (self as ObjectBase).handle?.realm.state.scheduler)
        return stream
    }
}
