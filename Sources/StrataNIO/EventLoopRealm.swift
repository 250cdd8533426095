import NIOCore
import Strata

/// A Realm confined to an `EventLoop`, behind a `Sendable` handle that any thread or task may
/// hold and pass on.
///
/// A `Realm` is not `Sendable`: it may be used only on its loop. The handle keeps the Realm
/// (in a `NIOLoopBound`, which checks the loop on every access) and runs work on the loop with
/// it: ``submit(_:)`` returns an `EventLoopFuture`, ``perform(_:)`` awaits the result. The work
/// returns `Sendable` values (plain structs, frozen objects), never the loop's live objects.
///
/// ```swift
/// let store = try await loop.makeRealm(configuration: configuration).get()
/// let names = try await store.perform { realm in
///     realm.objects(Dog.self).sorted(byKeyPath: "name").map(\.name)
/// }
/// ```
///
/// Every copy of the handle shares one Realm. The Realm is released with the last copy.
public struct EventLoopRealm: Sendable {
    private let bound: NIOLoopBound<Realm>

    /// The loop the Realm is confined to.
    public var eventLoop: any EventLoop { bound.eventLoop }

    /// Opens a Realm confined to `eventLoop` (see `Realm(configuration:eventLoop:)`); call it on
    /// the loop.
    ///
    /// Traps when not called on `eventLoop`.
    ///
    /// - Parameters:
    ///   - configuration: The Realm's configuration.
    ///   - eventLoop: The loop the Realm is confined to.
    /// - Throws: `Realm.Error`, as `Realm(configuration:)`.
    public init(configuration: Realm.Configuration = .defaultConfiguration, eventLoop: any EventLoop) throws {
        bound = NIOLoopBound(try Realm(configuration: configuration, eventLoop: eventLoop), eventLoop: eventLoop)
    }

    /// The Realm, on its loop.
    ///
    /// Traps when read off the loop.
    public var realm: Realm { bound.value }

    /// Runs `body` on the loop with the Realm.
    ///
    /// - Parameter body: The work; it runs on the loop and must not keep the Realm or its live
    ///   objects beyond the loop.
    /// - Returns: A future that succeeds with what `body` returns, or fails with what it throws.
    public func submit<Result: Sendable>(_ body: @escaping @Sendable (Realm) throws -> Result)
        -> EventLoopFuture<Result> {
        let bound = self.bound
        return bound.eventLoop.submit { try body(bound.value) }
    }

    /// Runs `body` on the loop with the Realm and returns its result.
    ///
    /// - Parameter body: The work; it runs on the loop and must not keep the Realm or its live
    ///   objects beyond the loop.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (Realm) throws -> Result) async throws
        -> Result {
        try await submit(body).get()
    }
}

extension EventLoop {
    /// Opens a Realm confined to this loop, from any thread: the Realm is opened on the loop, and
    /// the future succeeds (on the loop) with a `Sendable` handle to it.
    ///
    /// ```swift
    /// let store = try await loop.makeRealm(configuration: configuration).get()
    /// ```
    ///
    /// - Parameter configuration: The Realm's configuration.
    /// - Returns: A future that succeeds with the handle, or fails with a `Realm.Error` (as
    ///   `Realm(configuration:)` throws).
    public func makeRealm(configuration: Realm.Configuration = .defaultConfiguration)
        -> EventLoopFuture<EventLoopRealm> {
        submit { try EventLoopRealm(configuration: configuration, eventLoop: self) }
    }
}
