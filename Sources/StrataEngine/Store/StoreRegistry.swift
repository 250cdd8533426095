#if canImport(Glibc)
import Glibc
#endif
import StrataStorage
import StrataSupport

/// The stores open in this process, so that opening a path twice shares one instance (one
/// write gate, one log) instead of failing on the lock file or corrupting the log.
///
/// An entry lives from the store's open until the end of its `deinit`, which checkpoints the
/// store when its last user let go (see ``Store/checkpointOnRelease()``). While the entry is
/// there and its store is gone (the `deinit` runs), the path is *closing*: an open of it waits
/// for the close to finish instead of opening the files a second time beside it (POSIX record
/// locks do not keep two opens in one process apart).
///
/// No strong reference to a store is ever released while the registry's lock is held: a release
/// can be the last one, and the store's `deinit` takes the lock to end its close.
final class StoreRegistry: Sendable {
    static let shared = StoreRegistry()

    private final class WeakStore: @unchecked Sendable {
        // Safety: `store` is only read under the registry's lock; `weak` loads are atomic.
        weak var store: Store?
        let identity: ObjectIdentifier
        init(_ store: Store) {
            self.store = store
            identity = ObjectIdentifier(store)
        }
    }

    private let stores = LockedValueBox<[String: WeakStore]>([:])
    /// The failure of the last release checkpoint per key (see ``Store/checkpointOnRelease()``),
    /// removed by one that succeeds.
    private let releaseFailures = LockedValueBox<[String: String]>([:])

    /// What the registry holds for a key.
    private enum Lookup {
        /// An open store (the strong reference is taken out of the lock before it is released).
        case open(Store)
        /// A store whose `deinit` runs: the path is closing.
        case closing(WeakStore)
        /// Nothing: the path is closed.
        case closed
    }

    private static func lookup(_ key: String, in stores: [String: WeakStore]) -> Lookup {
        guard let entry = stores[key] else { return .closed }
        if let store = entry.store { return .open(store) }
        return .closing(entry)
    }

    /// Blocks until the close that `entry` stands for has finished.
    private func waitForClose(of key: String, _ entry: WeakStore) {
        stores.wait(until: { $0[key] !== entry }, then: { _ in })
    }

    /// The store open at `configuration`'s location, or a new one made by `create` (called with
    /// the registry's key of the location, under the registry's lock) once no store of that
    /// location is open or closing in this process.
    ///
    /// - Throws: ``StrataError/Code/wrongState`` when the store is open with another durability
    ///   or read-only setting; what `create` throws.
    func open(_ configuration: StoreConfiguration, create: (_ key: String) throws -> Store) throws -> Store {
        let key = Self.identity(of: configuration.location)
        while true {
            let found = try stores.withLockedValue { stores throws -> Lookup in
                let found = Self.lookup(key, in: stores)
                guard case .closed = found else { return found }
                let store = try create(key)
                stores[key] = WeakStore(store)
                return .open(store)
            }
            switch found {
            case .open(let existing):
                guard existing.configuration.durability == configuration.durability,
                      existing.configuration.readOnly == configuration.readOnly else {
                    throw StrataError(.wrongState, "the store is already open in this process with another "
                                      + "durability or read-only setting", path: key)
                }
                return existing
            case .closing(let entry):
                waitForClose(of: key, entry)
            case .closed:
                preconditionFailure("the registry made no store")
            }
        }
    }

    /// Ends the close of the store `identity` at `key`, which its `deinit` finished: opens of the
    /// path waiting for it go on.
    func didClose(_ key: String, identity: ObjectIdentifier) {
        stores.withLockedValue { stores in
            if stores[key]?.identity == identity { stores[key] = nil }
        }
        stores.broadcast()
    }

    /// Records the outcome of the release checkpoint of the store at `key`.
    func noteReleaseCheckpoint(_ key: String, outcome: Result<Void, any Error>) {
        releaseFailures.withLockedValue { failures in
            switch outcome {
            case .success: failures[key] = nil
            case .failure(let error): failures[key] = "\(error)"
            }
        }
    }

    /// The failure of the last release checkpoint of the store at `location` in this process, if
    /// it failed (nil when it succeeded, did not run, or none ran yet).
    func lastReleaseCheckpointError(at location: StoreConfiguration.Location) -> String? {
        let key = Self.identity(of: location)
        return releaseFailures.withLockedValue { $0[key] }
    }

    /// The store open in this process at `location`, if any.
    func existing(_ location: StoreConfiguration.Location) -> Store? {
        let key = Self.identity(of: location)
        let found = stores.withLockedValue { Self.lookup(key, in: $0) }
        if case .open(let store) = found { return store }
        return nil
    }

    /// Runs `body` while no store at `location` is open in this process, and none can be opened
    /// in it until `body` returns.
    ///
    /// A store whose Realms are all released but whose background checkpoint is still running
    /// (the checkpoint holds it) closes when the checkpoint ends, and a closing store when its
    /// release checkpoint ends: this waits for both first.
    ///
    /// - Throws: ``StrataError/Code/wrongState`` when a store at `location` is open here.
    func whileClosed<T>(_ location: StoreConfiguration.Location, _ body: () throws -> T) throws -> T {
        let key = Self.identity(of: location)
        // A few rounds at most: a store someone still uses may start another checkpoint, and is
        // refused below anyway.
        for _ in 0..<3 {
            guard let checkpoints = busyBackgroundCheckpoints(of: key) else { break }
            checkpoints.waitUntilIdle()
        }
        while true {
            let (found, result) = stores.withLockedValue { stores -> (Lookup, Result<T, any Error>?) in
                let found = Self.lookup(key, in: stores)
                guard case .closed = found else { return (found, nil) }
                return (found, Result { try body() })
            }
            switch found {
            case .open:
                throw StrataError(.wrongState, "the store is open in this process; close every Realm of it first",
                                  path: key)
            case .closing(let entry):
                waitForClose(of: key, entry)
            case .closed:
                return try result!.get()
            }
        }
    }

    /// The background checkpoints of the store open at `key` while one runs (the store
    /// reference is released on return, outside the lock).
    private func busyBackgroundCheckpoints(of key: String) -> BackgroundCheckpoints? {
        let found = stores.withLockedValue { Self.lookup(key, in: $0) }
        guard case .open(let store) = found, store.backgroundCheckpoints.isBusy else { return nil }
        return store.backgroundCheckpoints
    }

    /// A key that is the same for every spelling of one location.
    static func identity(of location: StoreConfiguration.Location) -> String {
        switch location {
        case .inMemory(let identifier):
            return "memory:" + identifier
        case .file(let path):
            let directory = FileSystem.parentDirectory(of: path)
            guard let resolved = realpath(directory, nil) else { return "file:" + path }
            defer { free(resolved) }
            return "file:" + String(cString: resolved) + "/" + FileSystem.fileName(of: path)
        }
    }
}
