import Foundation
import Strata
@_spi(Benchmarks) import StrataEngine

/// Observations of a Strata store for W7 and the scaling series: each runs on a `LibUVEventLoop`
/// thread of its own (Strata's way of delivering on "a background serial queue"), with a Realm
/// and a token that live on that loop until `stop()`.
final class StrataObserver: @unchecked Sendable {
    // Safety: `held` is touched only on `loop`'s thread (inside `execute` blocks), `loop` is
    // thread-safe.
    private let loop: LibUVEventLoop
    private var held: (Realm, NotificationToken)?

    /// Starts a loop, opens a Realm there and registers `observe` (which returns the token).
    init(name: String, configuration: Realm.Configuration,
         observe: @escaping @Sendable (Realm) -> NotificationToken) throws {
        loop = try LibUVEventLoop.startThread(name: name)
        let failure = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            do {
                let realm = try Realm(configuration: configuration)
                held = (realm, observe(realm))
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.current { throw error }
    }

    /// Invalidates the token, closes the Realm on its loop, and stops the loop.
    func stop() {
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            held?.1.invalidate()
            held = nil
            done.signal()
        }
        done.wait()
        loop.shutdownAndWait()
    }
}

/// Stamps the instant each commit is published (Strata's equivalent of GRDB's
/// `databaseDidCommit`): a publish observer on the engine store behind the Realm.
final class StrataCommitClock: @unchecked Sendable {
    // Safety: `stamp` is Locked; `store` and `id` are set once.
    private let store: StoreProbe
    private var id = 0
    private let stamp = Locked(UInt64(0))

    init(_ configuration: Realm.Configuration) throws {
        store = try StoreProbe(path: configuration.fileURL!.path, durability: configuration.durability)
        id = store.addPublishObserver { [stamp] _ in stamp.withLock { $0 = now() } }
    }

    var lastCommit: UInt64 { stamp.current }

    deinit { store.removePublishObserver(id) }
}
