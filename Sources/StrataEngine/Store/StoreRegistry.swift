#if canImport(Glibc)
import Glibc
#endif
import StrataStorage
import StrataSupport

/// The stores open in this process, so that opening a path twice shares one instance (one
/// write gate, one log) instead of failing on the lock file or corrupting the log.
final class StoreRegistry: Sendable {
    static let shared = StoreRegistry()

    private final class WeakStore: @unchecked Sendable {
        // Safety: only read and written under the registry's lock.
        weak var store: Store?
        init(_ store: Store) { self.store = store }
    }

    private let stores = LockedValueBox<[String: WeakStore]>([:])

    func open(_ configuration: StoreConfiguration, create: () throws -> Store) throws -> Store {
        let key = Self.identity(of: configuration.location)
        return try stores.withLockedValue { stores in
            if let existing = stores[key]?.store {
                guard existing.configuration.durability == configuration.durability,
                      existing.configuration.readOnly == configuration.readOnly else {
                    throw StrataError(.wrongState, "the store is already open in this process with another "
                                      + "durability or read-only setting", path: key)
                }
                return existing
            }
            stores = stores.filter { $0.value.store != nil }
            let store = try create()
            stores[key] = WeakStore(store)
            return store
        }
    }

    /// The store open in this process at `location`, if any.
    func existing(_ location: StoreConfiguration.Location) -> Store? {
        let key = Self.identity(of: location)
        return stores.withLockedValue { $0[key]?.store }
    }

    /// Runs `body` while no store at `location` is open in this process, and none can be opened
    /// in it until `body` returns.
    ///
    /// A store whose Realms are all released but whose background checkpoint is still running
    /// (the checkpoint holds it) closes when the checkpoint ends: this waits for that first.
    ///
    /// - Throws: ``StrataError/Code/wrongState`` when a store at `location` is open here.
    func whileClosed<T>(_ location: StoreConfiguration.Location, _ body: () throws -> T) throws -> T {
        let key = Self.identity(of: location)
        // A few rounds at most: a store someone still uses may start another checkpoint, and is
        // refused below anyway.
        for _ in 0..<3 {
            let checkpoints = stores.withLockedValue { stores -> BackgroundCheckpoints? in
                guard let store = stores[key]?.store, store.backgroundCheckpoints.isBusy else { return nil }
                return store.backgroundCheckpoints
            }
            guard let checkpoints else { break }
            checkpoints.waitUntilIdle()
        }
        return try stores.withLockedValue { stores in
            if stores[key]?.store != nil {
                throw StrataError(.wrongState, "the store is open in this process; close every Realm of it first",
                                  path: key)
            }
            return try body()
        }
    }

    /// A key that is the same for every spelling of one location.
    private static func identity(of location: StoreConfiguration.Location) -> String {
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
