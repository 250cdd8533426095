/// A snapshot whose version is counted as active until this handle is released.
///
/// While it lives, the store keeps every changeset after its version (so a notifier can walk
/// from it to the newest), and it counts against
/// ``StoreConfiguration/maximumNumberOfActiveVersions``. The store also records what holds it
/// (a ``PinHolder``), for ``Store/statistics``.
package final class PinnedSnapshot: Sendable {
    /// The pinned snapshot.
    package let snapshot: Snapshot
    /// The pin's key in the store's record of holders.
    let id: Int
    private let store: Store

    init(snapshot: Snapshot, id: Int, store: Store) {
        self.snapshot = snapshot
        self.id = id
        self.store = store
    }

    deinit { store.unpin(snapshot.version, id: id) }

    /// The pinned version.
    package var version: UInt64 { snapshot.version }

    /// Records that `holder` now holds this pin (a pin handed from a notifier to a Realm, say).
    ///
    /// - Complexity: O(1): one short lock.
    package func relabel(_ holder: PinHolder) { store.relabelPin(id, holder) }

    /// Calls `body` with the pinned snapshot where it is kept: reading ``snapshot`` from another
    /// module copies it (a retain and a release of its tables and of its names), on paths that
    /// run once per object.
    package func withSnapshot<R>(_ body: (borrowing Snapshot) -> R) -> R { body(snapshot) }
}
