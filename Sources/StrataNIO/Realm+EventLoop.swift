import NIOCore
import Strata

extension Realm {
    /// Opens a Realm confined to a swift-nio `EventLoop`: usable only on the loop, where its
    /// change notifications, `writeAsync` blocks and completions, and async sequences are
    /// delivered, in commit order.
    ///
    /// Call it on the loop (from `eventLoop.execute`, `submit`, a channel handler of the loop,
    /// or an actor whose executor is the loop); from elsewhere use
    /// `EventLoop.makeRealm(configuration:)`, which opens the Realm on the loop and returns a
    /// `Sendable` handle to it.
    ///
    /// ```swift
    /// let loop = MultiThreadedEventLoopGroup.singleton.next()
    /// loop.execute {
    ///     let realm = try! Realm(configuration: configuration, eventLoop: loop)
    ///     token = realm.objects(Dog.self).observe { change in
    ///         // runs on `loop`
    ///     }
    /// }
    /// ```
    ///
    /// As with `Realm(configuration:scheduler:)`, every call opens a Realm with a state of its own
    /// (its own pinned version and notifiers): open one per loop and keep it, rather than one per
    /// request. A write on the loop (`write`, `writeAsync`) waits for the file's write lock and
    /// for durability on the loop's thread, so a loop that serves connections is best kept for
    /// reads and observation, with writes on a loop of their own.
    ///
    /// Traps when not called on `eventLoop`.
    ///
    /// - Parameters:
    ///   - configuration: The Realm's configuration.
    ///   - eventLoop: The loop the Realm is confined to.
    /// - Throws: `Realm.Error`, as `Realm(configuration:)`.
    public convenience init(configuration: Realm.Configuration = .defaultConfiguration,
                            eventLoop: any EventLoop) throws {
        precondition(eventLoop.inEventLoop, "Realm(configuration:eventLoop:) must be called on the event loop: use "
                     + "eventLoop.execute { }, or eventLoop.makeRealm(configuration:) from elsewhere")
        try self.init(configuration: configuration, scheduler: EventLoopScheduler(eventLoop: eventLoop))
    }
}
