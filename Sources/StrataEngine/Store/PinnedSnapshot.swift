/// A snapshot whose version is counted as active until this handle is released.
///
/// While it lives, the store keeps every changeset after its version (so a notifier can walk
/// from it to the newest), and it counts against
/// ``StoreConfiguration/maximumNumberOfActiveVersions``.
package final class PinnedSnapshot: Sendable {
    /// The pinned snapshot.
    package let snapshot: Snapshot
    private let store: Store

    init(snapshot: Snapshot, store: Store) {
        self.snapshot = snapshot
        self.store = store
    }

    deinit { store.unpin(snapshot.version) }

    /// The pinned version.
    package var version: UInt64 { snapshot.version }

    /// Calls `body` with the pinned snapshot where it is kept: reading ``snapshot`` from another
    /// module copies it (a retain and a release of its tables and of its names), on paths that
    /// run once per object.
    package func withSnapshot<R>(_ body: (borrowing Snapshot) -> R) -> R { body(snapshot) }
}
